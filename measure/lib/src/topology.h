#pragma once
// Process topologies for the analysis of neighbourhood collectives: a rank
// waits in MPI_Neighbor_* only for its in-neighbours, which OTF2 cannot
// express. At the creation of a Cartesian or (distributed) graph
// communicator each rank notes its in-neighbours; at the end it writes them
// to EXP/topology/rank-<r>.json (format in docs/measure.md).

#include <mpi.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace orrery::measure {

/// Whether `comm` has a process topology (Cart, Graph or Dist_graph).
bool has_topology(MPI_Comm comm) noexcept;

/// This rank's in-neighbours in `comm` (ranks in `comm`, MPI_PROC_NULL
/// left out): the ranks a neighbourhood collective receives from.
std::vector<int> in_neighbors_of(MPI_Comm comm);

/// A Cartesian communicator's grid (MPI_Cart_create, its dimensions usually
/// from MPI_Dims_create) and this rank's coordinates in it.
struct CartesianPlace {
  std::vector<int> dims;
  std::vector<int> periods;  ///< 1 where the dimension wraps around
  std::vector<int> coords;
};

/// The grid of `comm` and this rank's place in it, if `comm` is Cartesian.
std::optional<CartesianPlace> cartesian_place(MPI_Comm comm);

/// Writes `directory`/rank-<rank>.json; communicator ids through `global_ids`
/// (local id -> unified id) when given, else local ("ids": "local"). Nothing
/// if there is no topology communicator. Cartesian communicators in
/// `cartesian` (by local id) add their grid ("cart": {dims, periods, coords}).
/// False on a write failure.
bool write_topologies(const std::string& directory, int rank,
                      const std::map<uint32_t, std::vector<int>>& in_neighbors,
                      const std::vector<uint32_t>* global_ids,
                      const std::map<uint32_t, CartesianPlace>* cartesian = nullptr) noexcept;

}  // namespace orrery::measure

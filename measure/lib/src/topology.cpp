#include "topology.h"

#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "experiment.h"

namespace orrery::measure {

bool has_topology(MPI_Comm comm) noexcept {
  int topology = MPI_UNDEFINED;
  return PMPI_Topo_test(comm, &topology) == MPI_SUCCESS && topology != MPI_UNDEFINED;
}

std::vector<int> in_neighbors_of(MPI_Comm comm) {
  int topology = MPI_UNDEFINED;
  PMPI_Topo_test(comm, &topology);
  std::vector<int> sources;
  if (topology == MPI_CART) {
    // MPI's neighbourhood order: per dimension the rank at -1, then at +1.
    int dims = 0;
    PMPI_Cartdim_get(comm, &dims);
    for (int d = 0; d < dims; ++d) {
      int below = MPI_PROC_NULL, above = MPI_PROC_NULL;
      PMPI_Cart_shift(comm, d, 1, &below, &above);
      for (const int peer : {below, above}) {
        if (peer != MPI_PROC_NULL) sources.push_back(peer);
      }
    }
  } else if (topology == MPI_GRAPH) {
    int rank = 0, count = 0;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Graph_neighbors_count(comm, rank, &count);
    sources.resize(static_cast<std::size_t>(count));
    if (count > 0) PMPI_Graph_neighbors(comm, rank, count, sources.data());
  } else if (topology == MPI_DIST_GRAPH) {
    int in = 0, out = 0, weighted = 0;
    PMPI_Dist_graph_neighbors_count(comm, &in, &out, &weighted);
    sources.resize(static_cast<std::size_t>(in));
    std::vector<int> destinations(static_cast<std::size_t>(out));
    if (in > 0 || out > 0) {
      PMPI_Dist_graph_neighbors(comm, in, sources.data(), MPI_UNWEIGHTED, out,
                                destinations.data(), MPI_UNWEIGHTED);
    }
  }
  return sources;
}

std::optional<CartesianPlace> cartesian_place(MPI_Comm comm) {
  int topology = MPI_UNDEFINED;
  PMPI_Topo_test(comm, &topology);
  if (topology != MPI_CART) return std::nullopt;
  int ndims = 0;
  PMPI_Cartdim_get(comm, &ndims);
  CartesianPlace place;
  place.dims.resize(static_cast<std::size_t>(ndims));
  place.periods.resize(static_cast<std::size_t>(ndims));
  place.coords.resize(static_cast<std::size_t>(ndims));
  if (ndims > 0 &&
      PMPI_Cart_get(comm, ndims, place.dims.data(), place.periods.data(), place.coords.data()) != MPI_SUCCESS) {
    return std::nullopt;
  }
  return place;
}

bool write_topologies(const std::string& directory, int rank,
                      const std::map<uint32_t, std::vector<int>>& in_neighbors,
                      const std::vector<uint32_t>* global_ids,
                      const std::map<uint32_t, CartesianPlace>* cartesian) noexcept {
  if (in_neighbors.empty()) return true;
  try {
    nlohmann::json comms = nlohmann::json::array();
    for (const auto& [local, sources] : in_neighbors) {
      const uint32_t id =
          global_ids == nullptr ? local : (local < global_ids->size() ? (*global_ids)[local] : local);
      nlohmann::json entry = {{"comm", id}, {"in_neighbors", sources}};
      if (cartesian != nullptr) {
        if (const auto it = cartesian->find(local); it != cartesian->end()) {
          entry["cart"] = {{"dims", it->second.dims}, {"periods", it->second.periods}, {"coords", it->second.coords}};
        }
      }
      comms.push_back(std::move(entry));
    }
    ::mkdir(directory.c_str(), 0755);
    return write_json(directory + "/rank-" + std::to_string(rank) + ".json",
                      {{"format", "orrery-topology"},
                       {"version", 1},
                       {"rank", rank},
                       {"ids", global_ids == nullptr ? "local" : "global"},
                       {"comms", comms}});
  } catch (...) {
    return false;
  }
}

}  // namespace orrery::measure

#pragma once
// Maps MPI communicators to local communicator definitions. A communicator made
// by a collective call gets a key that all its members agree on: its rank 0
// broadcasts (own world rank, own sequence number) inside the new communicator.
// An intercommunicator's members are both groups, the one holding the lowest
// world rank first; peers on it are recorded as indices into that list.
// MPI_Comm_idup derives its key from the parent's without communicating.

#include <mpi.h>

#include <cstdint>
#include <map>
#include <unordered_map>
#include <vector>

#include "definitions.h"
#include "topology.h"

namespace orrery::measure {

/// Local communicator ids of the communicators this rank uses.
class CommRegistry {
 public:
  static constexpr uint32_t kWorld = 0;
  static constexpr uint32_t kSelf = 1;

  /// Defines MPI_COMM_WORLD and MPI_COMM_SELF.
  void init(LocalDefinitions& definitions, int world_rank, int world_size);
  void finish() noexcept;

  /// Local id of `comm`; a communicator never seen being created is registered
  /// locally on first use (counted as an anomaly).
  uint32_t id(MPI_Comm comm) noexcept {
    if (comm == last_comm_) return last_id_;
    return lookup(comm);
  }
  /// Local id of `comm` as another thread than the MPI thread may ask for it
  /// (worker_mpi.cpp): no cache, no registration; kWorld if it is unknown.
  /// Communicators must not be created while other threads look them up.
  [[nodiscard]] uint32_t shared_id(MPI_Comm comm) const noexcept {
    if (comm == MPI_COMM_WORLD) return kWorld;
    if (comm == MPI_COMM_SELF) return kSelf;
    const auto it = ids_.find(comm);
    return it != ids_.end() ? it->second : kWorld;
  }
  /// `created` was just made from `parent` by `function`; collective over `created`.
  void on_created(MPI_Comm parent, MPI_Comm created, const char* function) noexcept;
  /// MPI_Comm_idup returned `created` (not usable for communication yet).
  void on_idup(MPI_Comm parent, MPI_Comm created) noexcept;
  /// What to add to a rank of communicator `id` to get its index in the
  /// communicator's member list (non-zero only on intercommunicators).
  [[nodiscard]] uint32_t peer_offset(uint32_t id) const noexcept {
    return id < peer_offsets_.size() ? peer_offsets_[id] : 0;
  }
  void on_freed(MPI_Comm comm) noexcept;
  /// This rank's in-neighbours (ranks in the communicator) in the topology
  /// communicators (Cart, Graph, Dist_graph) it created, by local id:
  /// what the analysis of neighbourhood collectives waits for (topology.h).
  [[nodiscard]] const std::map<uint32_t, std::vector<int>>& in_neighbors() const noexcept {
    return in_neighbors_;
  }
  /// The Cartesian communicators among them: the grid and this rank's coordinates (the viewer's topology view).
  [[nodiscard]] const std::map<uint32_t, CartesianPlace>& cartesian() const noexcept { return cartesian_; }

 private:
  uint32_t lookup(MPI_Comm comm) noexcept;
  uint32_t define(MPI_Comm comm, MPI_Comm parent, CommDef def) noexcept;
  void define_intercomm(MPI_Comm created, const char* function);
  std::vector<int> world_members(MPI_Group group) const;
  std::vector<int> world_members(MPI_Comm comm) const;

  LocalDefinitions* definitions_ = nullptr;
  int world_rank_ = 0;
  MPI_Group world_group_ = MPI_GROUP_NULL;
  std::unordered_map<MPI_Comm, uint32_t> ids_;
  MPI_Comm last_comm_ = MPI_COMM_NULL;
  uint32_t last_id_ = 0;
  uint32_t next_seq_ = 0;
  std::vector<uint32_t> peer_offsets_;  ///< by local id
  std::vector<uint32_t> idups_;         ///< by local id: MPI_Comm_idup calls on it so far
  std::map<uint32_t, std::vector<int>> in_neighbors_;  ///< topology communicators, by local id
  std::map<uint32_t, CartesianPlace> cartesian_;       ///< Cartesian ones, by local id
};

/// The communicators of this process (mpi_handlers.cpp).
extern CommRegistry g_comms;

}  // namespace orrery::measure

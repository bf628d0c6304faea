#pragma once
// Maps MPI communicators to local communicator definitions. A communicator made
// by a collective call gets a key that all its members agree on: its rank 0
// broadcasts (own world rank, own sequence number) inside the new communicator.
// An intercommunicator's members are both groups, the one holding the lowest
// world rank first; peers on it are recorded as indices into that list.
// MPI_Comm_idup derives its key from the parent's without communicating.
//
// Any thread may create, use and free communicators (MPI_THREAD_MULTIPLE):
// the registry (handle -> id, the definitions) is behind a mutex. The MPI
// thread looks ids up as before without it: a one-entry cache, then a map of
// its own that copies the shared one entry by entry as it misses; a
// communicator freed on another thread clears that copy (a generation count,
// read only when the cache misses), so a handle the library hands out again
// is never taken for the freed communicator.

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "definitions.h"
#include "topology.h"

namespace orrery::measure {

/// Peer offsets by local id (non-zero only on intercommunicators): written
/// under the registry's mutex, read by any thread without it. Chunks are
/// allocated for intercommunicators only and never move.
class PeerOffsets {
 public:
  PeerOffsets() = default;
  PeerOffsets(const PeerOffsets&) = delete;
  PeerOffsets& operator=(const PeerOffsets&) = delete;
  ~PeerOffsets() { clear(); }
  [[nodiscard]] uint32_t get(uint32_t id) const noexcept {
    const uint32_t chunk = id >> kChunkBits;
    if (chunk >= kChunks) return 0;
    const std::atomic<uint32_t>* values = chunks_[chunk].load(std::memory_order_acquire);
    return values != nullptr ? values[id & kChunkMask].load(std::memory_order_relaxed) : 0;
  }
  /// Under the registry's mutex. Ids beyond the table keep offset 0.
  void set(uint32_t id, uint32_t offset);
  /// At MPI_Finalize (no other thread calls MPI then).
  void clear() noexcept;

 private:
  static constexpr uint32_t kChunkBits = 8;
  static constexpr uint32_t kChunkMask = (1u << kChunkBits) - 1;
  static constexpr uint32_t kChunks = 1u << 12;  // 2^20 communicator ids
  std::atomic<std::atomic<uint32_t>*> chunks_[kChunks] = {};
};

/// Local communicator ids of the communicators this rank uses.
class CommRegistry {
 public:
  static constexpr uint32_t kWorld = 0;
  static constexpr uint32_t kSelf = 1;

  /// Defines MPI_COMM_WORLD and MPI_COMM_SELF.
  void init(LocalDefinitions& definitions, int world_rank, int world_size);
  void finish() noexcept;

  /// Local id of `comm`, on the MPI thread only; a communicator never seen
  /// being created is registered locally on first use (counted as an anomaly).
  uint32_t id(MPI_Comm comm) noexcept {
    if (comm == last_comm_.load(std::memory_order_relaxed)) return last_id_;
    return lookup(comm);
  }
  /// Local id of `comm` on any other thread (worker_mpi.cpp): under the mutex,
  /// registered on first use as id() does.
  [[nodiscard]] uint32_t shared_id(MPI_Comm comm) noexcept;
  /// `created` was just made from `parent` by `function` on the MPI thread
  /// (`mpi_thread`) or another one; collective over `created`.
  void on_created(MPI_Comm parent, MPI_Comm created, const char* function, bool mpi_thread) noexcept;
  /// MPI_Comm_idup returned `created` (not usable for communication yet).
  void on_idup(MPI_Comm parent, MPI_Comm created, bool mpi_thread) noexcept;
  /// What to add to a rank of communicator `id` to get its index in the
  /// communicator's member list (non-zero only on intercommunicators).
  [[nodiscard]] uint32_t peer_offset(uint32_t id) const noexcept { return peer_offsets_.get(id); }
  /// `comm` is about to be freed on the MPI thread (`mpi_thread`) or another one.
  void on_freed(MPI_Comm comm, bool mpi_thread) noexcept;
  /// This rank's in-neighbours (ranks in the communicator) in the topology
  /// communicators (Cart, Graph, Dist_graph) it created, by local id:
  /// what the analysis of neighbourhood collectives waits for (topology.h).
  /// Read at MPI_Finalize.
  [[nodiscard]] const std::map<uint32_t, std::vector<int>>& in_neighbors() const noexcept {
    return in_neighbors_;
  }
  /// The Cartesian communicators among them: the grid and this rank's coordinates (the viewer's topology view).
  [[nodiscard]] const std::map<uint32_t, CartesianPlace>& cartesian() const noexcept { return cartesian_; }
  /// Communicators created on other threads than the MPI thread whose
  /// registration failed (out of memory): events on them name MPI_COMM_WORLD.
  [[nodiscard]] uint64_t unregistered_thread_comms() const noexcept {
    return unregistered_thread_comms_.load(std::memory_order_relaxed);
  }

 private:
  uint32_t lookup(MPI_Comm comm) noexcept;
  /// Under mutex_: the id of `comm`, registered locally if it is unknown.
  uint32_t find_or_register_locked(MPI_Comm comm);
  /// Under mutex_: adds the definition of `comm`.
  uint32_t define_locked(MPI_Comm comm, MPI_Comm parent, CommDef def);
  /// The MPI thread's cache and copy learn `comm` -> `id`.
  void remember(MPI_Comm comm, uint32_t id);
  uint32_t define(MPI_Comm comm, MPI_Comm parent, CommDef def, bool mpi_thread) noexcept;
  uint32_t next_seq() noexcept;
  void define_intercomm(MPI_Comm created, const char* function, bool mpi_thread);
  std::vector<int> world_members(MPI_Group group) const;
  std::vector<int> world_members(MPI_Comm comm) const;

  LocalDefinitions* definitions_ = nullptr;  ///< its communicators under mutex_
  int world_rank_ = 0;
  MPI_Group world_group_ = MPI_GROUP_NULL;

  std::mutex mutex_;  ///< guards what follows up to the MPI thread's part
  std::unordered_map<MPI_Comm, uint32_t> shared_ids_;
  uint32_t next_seq_ = 0;
  std::vector<uint32_t> idups_;                        ///< by local id: MPI_Comm_idup calls on it so far
  std::map<uint32_t, std::vector<int>> in_neighbors_;  ///< topology communicators, by local id
  std::map<uint32_t, CartesianPlace> cartesian_;       ///< Cartesian ones, by local id
  PeerOffsets peer_offsets_;                           ///< written under mutex_, read by any thread
  std::atomic<uint64_t> generation_{0};                ///< communicators freed on other threads
  std::atomic<uint64_t> unregistered_thread_comms_{0};

  // The MPI thread's: read and written by it only (another thread's free
  // may clear last_comm_, never set it).
  std::atomic<MPI_Comm> last_comm_{MPI_COMM_NULL};
  uint32_t last_id_ = 0;
  std::unordered_map<MPI_Comm, uint32_t> own_ids_;
  uint64_t seen_generation_ = 0;
};

/// The communicators of this process (mpi_handlers.cpp).
extern CommRegistry g_comms;

}  // namespace orrery::measure

#include "comm_registry.h"

#include "topology.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "recorder.h"

namespace orrery::measure {

void PeerOffsets::set(uint32_t id, uint32_t offset) {
  const uint32_t chunk = id >> kChunkBits;
  if (chunk >= kChunks) return;
  std::atomic<uint32_t>* values = chunks_[chunk].load(std::memory_order_relaxed);
  if (values == nullptr) {
    if (offset == 0) return;
    values = new std::atomic<uint32_t>[kChunkMask + 1];
    for (uint32_t i = 0; i <= kChunkMask; ++i) values[i].store(0, std::memory_order_relaxed);
    chunks_[chunk].store(values, std::memory_order_release);
  }
  values[id & kChunkMask].store(offset, std::memory_order_relaxed);
}

void PeerOffsets::clear() noexcept {
  for (auto& chunk : chunks_) delete[] chunk.exchange(nullptr, std::memory_order_relaxed);
}

void CommRegistry::init(LocalDefinitions& definitions, int world_rank, int world_size) {
  definitions_ = &definitions;
  world_rank_ = world_rank;
  PMPI_Comm_group(MPI_COMM_WORLD, &world_group_);
  CommDef world;
  world.key_root = -1;
  world.name = "MPI_COMM_WORLD";
  world.kind = CommDef::Kind::kWorld;
  world.members.resize(static_cast<std::size_t>(world_size));
  std::iota(world.members.begin(), world.members.end(), 0);
  CommDef self;
  self.key_root = -2;
  self.name = "MPI_COMM_SELF";
  self.kind = CommDef::Kind::kSelf;
  self.members = {world_rank};
  const std::lock_guard<std::mutex> lock(mutex_);
  shared_ids_[MPI_COMM_WORLD] = definitions.add_comm(std::move(world));
  shared_ids_[MPI_COMM_SELF] = definitions.add_comm(std::move(self));
  idups_.assign(2, 0);
  remember(MPI_COMM_SELF, kSelf);
  remember(MPI_COMM_WORLD, kWorld);
  seen_generation_ = generation_.load(std::memory_order_relaxed);
}

void CommRegistry::finish() noexcept {
  if (world_group_ != MPI_GROUP_NULL) PMPI_Group_free(&world_group_);
  const std::lock_guard<std::mutex> lock(mutex_);
  shared_ids_.clear();
  own_ids_.clear();
  idups_.clear();
  in_neighbors_.clear();
  cartesian_.clear();
  peer_offsets_.clear();
  last_comm_.store(MPI_COMM_NULL, std::memory_order_relaxed);
}

std::vector<int> CommRegistry::world_members(MPI_Comm comm) const {
  MPI_Group group = MPI_GROUP_NULL;
  PMPI_Comm_group(comm, &group);  // the local group of an intercommunicator
  std::vector<int> world = world_members(group);
  PMPI_Group_free(&group);
  return world;
}

std::vector<int> CommRegistry::world_members(MPI_Group group) const {
  int size = 0;
  PMPI_Group_size(group, &size);
  std::vector<int> ranks(static_cast<std::size_t>(size));
  std::iota(ranks.begin(), ranks.end(), 0);
  std::vector<int> world(ranks.size());
  PMPI_Group_translate_ranks(group, size, ranks.data(), world_group_, world.data());
  return world;
}

void CommRegistry::remember(MPI_Comm comm, uint32_t id) {
  own_ids_[comm] = id;
  last_comm_.store(comm, std::memory_order_relaxed);
  last_id_ = id;
}

uint32_t CommRegistry::define_locked(MPI_Comm comm, MPI_Comm parent, CommDef def) {
  if (parent != MPI_COMM_NULL) {
    if (auto it = shared_ids_.find(parent); it != shared_ids_.end()) def.parent = it->second;
  }
  const uint32_t id = definitions_->add_comm(std::move(def));
  idups_.resize(id + 1, 0);
  shared_ids_[comm] = id;
  return id;
}

uint32_t CommRegistry::define(MPI_Comm comm, MPI_Comm parent, CommDef def, bool mpi_thread) noexcept {
  try {
    if (def.members.empty()) def.members = world_members(comm);  // PMPI outside the lock
    uint32_t id = kWorld;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      id = define_locked(comm, parent, std::move(def));
    }
    if (mpi_thread) remember(comm, id);
    return id;
  } catch (...) {
    if (!mpi_thread) unregistered_thread_comms_.fetch_add(1, std::memory_order_relaxed);
    return kWorld;
  }
}

uint32_t CommRegistry::next_seq() noexcept {
  const std::lock_guard<std::mutex> lock(mutex_);
  return next_seq_++;
}

uint32_t CommRegistry::find_or_register_locked(MPI_Comm comm) {
  if (auto it = shared_ids_.find(comm); it != shared_ids_.end()) return it->second;
  if (comm == MPI_COMM_NULL) return kWorld;
  ++g_state.anomalies.lazily_registered_comms;
  // Local-only key: the high bit keeps it apart from keys agreed collectively.
  CommDef def;
  def.key_root = world_rank_;
  def.key_seq = 0x80000000u | next_seq_++;
  def.name = "unknown communicator";
  def.members = world_members(comm);
  return define_locked(comm, MPI_COMM_NULL, std::move(def));
}

uint32_t CommRegistry::lookup(MPI_Comm comm) noexcept {
  try {
    const uint64_t generation = generation_.load(std::memory_order_acquire);
    if (generation != seen_generation_) {  // another thread freed a communicator
      own_ids_.clear();
      seen_generation_ = generation;
    }
    if (auto it = own_ids_.find(comm); it != own_ids_.end()) {
      last_comm_.store(comm, std::memory_order_relaxed);
      last_id_ = it->second;
      return last_id_;
    }
    if (comm == MPI_COMM_NULL) return kWorld;
    uint32_t id = kWorld;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      id = find_or_register_locked(comm);
    }
    remember(comm, id);
    return id;
  } catch (...) {
    return kWorld;
  }
}

uint32_t CommRegistry::shared_id(MPI_Comm comm) noexcept {
  if (comm == MPI_COMM_WORLD) return kWorld;
  if (comm == MPI_COMM_SELF) return kSelf;
  try {
    const std::lock_guard<std::mutex> lock(mutex_);
    return find_or_register_locked(comm);
  } catch (...) {
    return kWorld;
  }
}

void CommRegistry::on_created(MPI_Comm parent, MPI_Comm created, const char* function, bool mpi_thread) noexcept {
  if (created == MPI_COMM_NULL) return;
  int inter = 0;
  PMPI_Comm_test_inter(created, &inter);
  if (inter != 0) {
    try {
      define_intercomm(created, function, mpi_thread);
    } catch (...) {
      if (!mpi_thread) unregistered_thread_comms_.fetch_add(1, std::memory_order_relaxed);
    }
    return;
  }
  int rank = 0;
  PMPI_Comm_rank(created, &rank);
  int key[2] = {world_rank_, 0};
  if (rank == 0) key[1] = static_cast<int>(next_seq());
  PMPI_Bcast(key, 2, MPI_INT, 0, created);  // never under the mutex: other threads go on meanwhile
  CommDef def;
  def.key_root = key[0];
  def.key_seq = static_cast<uint32_t>(key[1]);
  def.name = function;
  const uint32_t id = define(created, parent, std::move(def), mpi_thread);
  try {
    std::vector<int> sources = in_neighbors_of(created);
    const bool topology = !sources.empty() || has_topology(created);
    auto place = cartesian_place(created);
    const std::lock_guard<std::mutex> lock(mutex_);
    if (topology) in_neighbors_[id] = std::move(sources);
    if (place) cartesian_[id] = std::move(*place);
  } catch (...) {
  }
}

// Both groups are known locally; group A is the one holding the lowest world
// rank. A's rank 0 picks the key and broadcasts it to B over the
// intercommunicator; B's rank 0 sends it back to the rest of A.
void CommRegistry::define_intercomm(MPI_Comm created, const char* function, bool mpi_thread) {
  MPI_Group remote_group = MPI_GROUP_NULL;
  PMPI_Comm_remote_group(created, &remote_group);
  const std::vector<int> remote = world_members(remote_group);
  PMPI_Group_free(&remote_group);
  const std::vector<int> local = world_members(created);
  if (local.empty() || remote.empty()) return;
  const bool in_a = *std::min_element(local.begin(), local.end()) < *std::min_element(remote.begin(), remote.end());
  int rank = 0;
  PMPI_Comm_rank(created, &rank);
  int key[2] = {world_rank_, 0};
  if (in_a && rank == 0) key[1] = static_cast<int>(next_seq());
  const int sender_root = rank == 0 ? MPI_ROOT : MPI_PROC_NULL;
  PMPI_Bcast(key, 2, MPI_INT, in_a ? sender_root : 0, created);   // A -> B
  PMPI_Bcast(key, 2, MPI_INT, in_a ? 0 : sender_root, created);   // B -> rest of A
  CommDef def;
  def.key_root = key[0];
  def.key_seq = static_cast<uint32_t>(key[1]);
  def.name = function;
  def.members = in_a ? local : remote;
  const std::vector<int>& b = in_a ? remote : local;
  def.members.insert(def.members.end(), b.begin(), b.end());
  const std::lock_guard<std::mutex> lock(mutex_);
  const uint32_t id = define_locked(created, MPI_COMM_NULL, std::move(def));
  if (in_a) peer_offsets_.set(id, static_cast<uint32_t>(local.size()));
  if (mpi_thread) remember(created, id);
}

void CommRegistry::on_idup(MPI_Comm parent, MPI_Comm created, bool mpi_thread) noexcept {
  if (created == MPI_COMM_NULL) return;  // an MPI that sets the handle only at completion: lazy
  try {
    int inter = 0;
    PMPI_Comm_test_inter(created, &inter);
    const std::lock_guard<std::mutex> lock(mutex_);
    const uint32_t parent_id = find_or_register_locked(parent);
    const CommDef& from = definitions_->comms()[parent_id];
    CommDef def;
    def.key_root = from.key_root;
    def.key_seq = from.key_seq;
    def.key_path = from.key_path + "/i" + std::to_string(idups_[parent_id]++);
    def.name = "MPI_Comm_idup";
    def.members = from.members;
    const uint32_t new_id = define_locked(created, parent, std::move(def));
    if (inter != 0) peer_offsets_.set(new_id, peer_offsets_.get(parent_id));
    if (mpi_thread) remember(created, new_id);
  } catch (...) {
    if (!mpi_thread) unregistered_thread_comms_.fetch_add(1, std::memory_order_relaxed);
  }
}

void CommRegistry::on_freed(MPI_Comm comm, bool mpi_thread) noexcept {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    shared_ids_.erase(comm);
  }
  if (mpi_thread) {
    own_ids_.erase(comm);
    if (comm == last_comm_.load(std::memory_order_relaxed)) last_comm_.store(MPI_COMM_NULL, std::memory_order_relaxed);
    return;
  }
  // The MPI thread may hold `comm` in its copy and cache: a handle handed
  // out again must not find the freed communicator's id there.
  generation_.fetch_add(1, std::memory_order_release);
  MPI_Comm expected = comm;
  last_comm_.compare_exchange_strong(expected, MPI_COMM_NULL, std::memory_order_relaxed);
}

}  // namespace orrery::measure

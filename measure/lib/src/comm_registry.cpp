#include "comm_registry.h"

#include "topology.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "recorder.h"

namespace orrery::measure {

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
  ids_[MPI_COMM_WORLD] = definitions.add_comm(std::move(world));
  CommDef self;
  self.key_root = -2;
  self.name = "MPI_COMM_SELF";
  self.kind = CommDef::Kind::kSelf;
  self.members = {world_rank};
  ids_[MPI_COMM_SELF] = definitions.add_comm(std::move(self));
  peer_offsets_.assign(2, 0);
  idups_.assign(2, 0);
  last_comm_ = MPI_COMM_WORLD;
  last_id_ = kWorld;
}

void CommRegistry::finish() noexcept {
  if (world_group_ != MPI_GROUP_NULL) PMPI_Group_free(&world_group_);
  ids_.clear();
  peer_offsets_.clear();
  idups_.clear();
  in_neighbors_.clear();
  cartesian_.clear();
  last_comm_ = MPI_COMM_NULL;
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

uint32_t CommRegistry::define(MPI_Comm comm, MPI_Comm parent, CommDef def) noexcept {
  try {
    if (def.members.empty()) def.members = world_members(comm);
    if (parent != MPI_COMM_NULL) {
      auto it = ids_.find(parent);
      if (it != ids_.end()) def.parent = it->second;
    }
    const uint32_t id = definitions_->add_comm(std::move(def));
    peer_offsets_.resize(id + 1, 0);
    idups_.resize(id + 1, 0);
    ids_[comm] = id;
    last_comm_ = comm;
    last_id_ = id;
    return id;
  } catch (...) {
    return kWorld;
  }
}

uint32_t CommRegistry::lookup(MPI_Comm comm) noexcept {
  if (auto it = ids_.find(comm); it != ids_.end()) {
    last_comm_ = comm;
    last_id_ = it->second;
    return last_id_;
  }
  if (comm == MPI_COMM_NULL) return kWorld;
  ++g_state.anomalies.lazily_registered_comms;
  // Local-only key: the high bit keeps it apart from keys agreed collectively.
  CommDef def;
  def.key_root = world_rank_;
  def.key_seq = 0x80000000u | next_seq_++;
  def.name = "unknown communicator";
  return define(comm, MPI_COMM_NULL, std::move(def));
}

void CommRegistry::on_created(MPI_Comm parent, MPI_Comm created, const char* function) noexcept {
  if (created == MPI_COMM_NULL) return;
  int inter = 0;
  PMPI_Comm_test_inter(created, &inter);
  if (inter != 0) {
    try {
      define_intercomm(created, function);
    } catch (...) {
    }
    return;
  }
  int rank = 0;
  PMPI_Comm_rank(created, &rank);
  int key[2] = {world_rank_, 0};
  if (rank == 0) key[1] = static_cast<int>(next_seq_++);
  PMPI_Bcast(key, 2, MPI_INT, 0, created);
  CommDef def;
  def.key_root = key[0];
  def.key_seq = static_cast<uint32_t>(key[1]);
  def.name = function;
  const uint32_t id = define(created, parent, std::move(def));
  try {
    std::vector<int> sources = in_neighbors_of(created);
    if (!sources.empty() || has_topology(created)) in_neighbors_[id] = std::move(sources);
    if (auto place = cartesian_place(created)) cartesian_[id] = std::move(*place);
  } catch (...) {
  }
}

// Both groups are known locally; group A is the one holding the lowest world
// rank. A's rank 0 picks the key and broadcasts it to B over the
// intercommunicator; B's rank 0 sends it back to the rest of A.
void CommRegistry::define_intercomm(MPI_Comm created, const char* function) {
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
  if (in_a && rank == 0) key[1] = static_cast<int>(next_seq_++);
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
  const uint32_t id = define(created, MPI_COMM_NULL, std::move(def));
  if (id < peer_offsets_.size() && in_a) peer_offsets_[id] = static_cast<uint32_t>(local.size());
}

void CommRegistry::on_idup(MPI_Comm parent, MPI_Comm created) noexcept {
  if (created == MPI_COMM_NULL) return;  // an MPI that sets the handle only at completion: lazy
  try {
    const uint32_t parent_id = id(parent);
    const CommDef& from = definitions_->comms()[parent_id];
    CommDef def;
    def.key_root = from.key_root;
    def.key_seq = from.key_seq;
    def.key_path = from.key_path + "/i" + std::to_string(idups_[parent_id]++);
    def.name = "MPI_Comm_idup";
    def.members = from.members;
    int inter = 0;
    PMPI_Comm_test_inter(created, &inter);
    const uint32_t offset = peer_offsets_[parent_id];
    const uint32_t new_id = define(created, parent, std::move(def));
    if (inter != 0 && new_id < peer_offsets_.size()) peer_offsets_[new_id] = offset;
  } catch (...) {
  }
}

void CommRegistry::on_freed(MPI_Comm comm) noexcept {
  ids_.erase(comm);
  if (comm == last_comm_) last_comm_ = MPI_COMM_NULL;
}

}  // namespace orrery::measure

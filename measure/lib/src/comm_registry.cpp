#include "comm_registry.h"

#include <numeric>

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
  last_comm_ = MPI_COMM_WORLD;
  last_id_ = kWorld;
}

void CommRegistry::finish() noexcept {
  if (world_group_ != MPI_GROUP_NULL) PMPI_Group_free(&world_group_);
  ids_.clear();
  last_comm_ = MPI_COMM_NULL;
}

std::vector<int> CommRegistry::world_members(MPI_Comm comm) const {
  MPI_Group group = MPI_GROUP_NULL;
  PMPI_Comm_group(comm, &group);
  int size = 0;
  PMPI_Group_size(group, &size);
  std::vector<int> ranks(static_cast<std::size_t>(size));
  std::iota(ranks.begin(), ranks.end(), 0);
  std::vector<int> world(ranks.size());
  PMPI_Group_translate_ranks(group, size, ranks.data(), world_group_, world.data());
  PMPI_Group_free(&group);
  return world;
}

uint32_t CommRegistry::define(MPI_Comm comm, MPI_Comm parent, int32_t key_root,
                              uint32_t key_seq, const char* name) noexcept {
  try {
    CommDef def;
    def.key_root = key_root;
    def.key_seq = key_seq;
    def.name = name;
    def.members = world_members(comm);
    if (parent != MPI_COMM_NULL) {
      auto it = ids_.find(parent);
      if (it != ids_.end()) def.parent = it->second;
    }
    const uint32_t id = definitions_->add_comm(std::move(def));
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
  return define(comm, MPI_COMM_NULL, world_rank_, 0x80000000u | next_seq_++, "unknown communicator");
}

void CommRegistry::on_created(MPI_Comm parent, MPI_Comm created, const char* function) noexcept {
  if (created == MPI_COMM_NULL) return;
  int inter = 0;
  PMPI_Comm_test_inter(created, &inter);
  if (inter != 0) {
    define(created, parent, world_rank_, 0x80000000u | next_seq_++, function);
    return;
  }
  int rank = 0;
  PMPI_Comm_rank(created, &rank);
  int key[2] = {world_rank_, 0};
  if (rank == 0) key[1] = static_cast<int>(next_seq_++);
  PMPI_Bcast(key, 2, MPI_INT, 0, created);
  define(created, parent, key[0], static_cast<uint32_t>(key[1]), function);
}

void CommRegistry::on_freed(MPI_Comm comm) noexcept {
  ids_.erase(comm);
  if (comm == last_comm_) last_comm_ = MPI_COMM_NULL;
}

}  // namespace orrery::measure

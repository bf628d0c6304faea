#include "orrery/trace/init_finalize.h"

namespace orrery::analyzer {

uint32_t world_comm(const Definitions& definitions) {
  uint32_t found = kNone;
  for (const auto& [id, comm] : definitions.comms) {
    if (comm.is_self || comm.members.size() != definitions.ranks.size()) continue;
    bool in_order = true;
    for (std::size_t r = 0; r < comm.members.size() && in_order; ++r) {
      in_order = comm.members[r] == r;
    }
    if (!in_order) continue;
    if (comm.name == "MPI_COMM_WORLD") return id;
    if (found == kNone) found = id;
  }
  return found;
}

void synchronize_init_and_finalize(const Definitions& definitions, TraceBuilder& builder) {
  if (definitions.ranks.size() < 2) return;
  const uint32_t world = world_comm(definitions);
  if (world == kNone) return;
  for (uint32_t id = 0; id < definitions.regions.size(); ++id) {
    const RegionDef& region = definitions.regions[id];
    if (region.paradigm != Paradigm::kMpi) continue;
    if (region.name == "MPI_Init" || region.name == "MPI_Init_thread") {
      builder.synchronize_in(id, CollectiveKind::kInit, world);
    } else if (region.name == "MPI_Finalize") {
      builder.synchronize_in(id, CollectiveKind::kFinalize, world);
    }
  }
}

}  // namespace orrery::analyzer

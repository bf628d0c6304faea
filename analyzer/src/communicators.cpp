#include "orrery/analyzer/communicators.h"

#include <algorithm>
#include <numeric>
#include <vector>
#include "vmpi.h"

namespace orrery::analyzer {

Communicators::Communicators(const Definitions& definitions, uint32_t self, MPI_Comm world) {
  int world_size = 0;
  vmpi::Comm_size(world, &world_size);
  MPI_Group world_group;
  vmpi::Comm_group(world, &world_group);
  std::vector<uint32_t> identity(static_cast<std::size_t>(world_size));
  std::iota(identity.begin(), identity.end(), 0U);
  for (const auto& [id, def] : definitions.comms) {
    MPI_Comm comm = MPI_COMM_NULL;
    if (def.is_self || def.members.size() == 1) {
      if (def.is_self || def.members[0] == self) vmpi::Comm_dup(MPI_COMM_SELF, &comm);
    } else if (def.members == identity) {
      vmpi::Comm_dup(world, &comm);
    } else if (std::find(def.members.begin(), def.members.end(), self) != def.members.end()) {
      bool valid = true;
      for (uint32_t member : def.members) valid = valid && member < static_cast<uint32_t>(world_size);
      if (valid) {
        std::vector<int> ranks(def.members.begin(), def.members.end());
        MPI_Group group;
        vmpi::Group_incl(world_group, static_cast<int>(ranks.size()), ranks.data(), &group);
        // Only the members take part, and all walk the comms in id order.
        vmpi::Comm_create_group(world, group, static_cast<int>(id % 32768), &comm);
        vmpi::Group_free(&group);
      }
    }
    if (comm != MPI_COMM_NULL) comms_[id] = comm;
  }
  vmpi::Group_free(&world_group);
}

Communicators::~Communicators() {
  for (auto& [id, comm] : comms_) vmpi::Comm_free(&comm);
}

MPI_Comm Communicators::get(uint32_t id) const {
  auto it = comms_.find(id);
  return it == comms_.end() ? MPI_COMM_NULL : it->second;
}

int Communicators::size(uint32_t id) const {
  MPI_Comm comm = get(id);
  if (comm == MPI_COMM_NULL) return 0;
  int size = 0;
  vmpi::Comm_size(comm, &size);
  return size;
}

}  // namespace orrery::analyzer

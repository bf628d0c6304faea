#pragma once
// Definitions for tests that build their traces by hand: one communicator,
// `comm`, holding every rank of MPI_COMM_WORLD in order.

#include <cstdint>

#include "orrery/trace/trace.h"

namespace orrery::testing {

inline analyzer::Definitions world_definitions(uint32_t ranks, uint32_t comm) {
  analyzer::Definitions definitions;
  definitions.ranks.resize(ranks);
  analyzer::CommDef world{"world", {}, false};
  for (uint32_t r = 0; r < ranks; ++r) world.members.push_back(r);
  definitions.comms[comm] = world;
  return definitions;
}

}  // namespace orrery::testing

#pragma once
// What a collective call moves, from its arguments: the OTF2 operation, the
// root, and the bytes of the send buffers this process supplies and of the
// receive buffers it gets filled (its own block included), per the MPI
// standard's significance rules.

#include <otf2/OTF2_Events.h>
#include <otf2/OTF2_GeneralDefinitions.h>

#include <cstdint>

#include "mpi_handlers.h"

namespace orrery::measure {

struct CollectiveBytes {
  uint8_t op = OTF2_COLLECTIVE_OP_BARRIER;
  uint32_t root = OTF2_UNDEFINED_UINT32;
  uint64_t sent = 0;
  uint64_t received = 0;
};

CollectiveBytes collective_bytes(CollOp op, const MpiArgs& a) noexcept;

}  // namespace orrery::measure

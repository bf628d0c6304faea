#pragma once
// Timestamp correction, step one: put every rank on rank 0's time line by
// interpolating the clock offsets measured at init and finalize. Step two
// (clock-condition violations) needs messages and happens in the forward replay.

#include "orrery/analyzer/trace.h"

namespace orrery::analyzer {

/// Shifts every event by the offset interpolated (linearly) at its time.
/// A trace without offsets is taken as already synchronized.
void apply_clock_offsets(LocalTrace& trace);

}  // namespace orrery::analyzer

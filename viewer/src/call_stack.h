#pragma once
// The call-stack view of one rank: its region instances over a time window
// as nested levels (depth 0 the outermost), instances shorter than a pixel
// merged per level, so an answer's size depends on the width and the depth,
// not on the trace's size.

#include <cstddef>
#include <cstdint>

#include <nlohmann/json.hpp>

#include "timeline_data.h"

namespace orrery::viewer {

/// {rank, t0, t1, depth, levels: [[[begin, end, region, instance, busy, pieces], …] per depth]}:
/// each level's instances overlapping [t0, t1], clipped to it. Consecutive
/// instances of a level narrower than a pixel ((t1 - t0) / width) and less than
/// a pixel apart are merged: instance -1, `busy` their total time, `pieces`
/// their count, `region` the one with the most time among them. At most
/// `max_depth` levels; `depth` is the rank's deepest level in the window + 1.
nlohmann::json call_stack(TimelineSource& source, uint32_t rank, double t0, double t1, uint32_t width,
                          std::size_t max_depth = 64);

}  // namespace orrery::viewer

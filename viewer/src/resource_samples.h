#pragma once
// The resource samples of a trace (`orrery run --sampling-interval`) for the
// timeline's curves under each rank's row and the Resources panel: per rank,
// the samples in a window, thinned to a number of points.

#include <cstddef>
#include <cstdint>

#include <nlohmann/json.hpp>

#include "timeline_data.h"

namespace orrery::viewer {

/// {members: [{name, unit}], sampled, reason?, ranks: [{rank, samples: [[time, v0, …, v5]], count}]}
/// for ranks [first_rank, first_rank + ranks): each rank's samples in
/// [t0, t1] with its last one before and first one after the window (so that
/// curves and rates reach its edges), at most `points` per rank, evenly
/// picked, the first and last kept. Counters accumulate, so rates between any
/// two listed samples are exact. `sampled` is false (with the reason) when no
/// rank of the trace recorded a sample.
nlohmann::json resource_samples(TimelineSource& source, double t0, double t1, uint32_t first_rank,
                                uint32_t ranks, std::size_t points);

}  // namespace orrery::viewer

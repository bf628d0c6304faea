#pragma once
// Views of a time window from the timeline summary (timeline_summary.h):
// a row of per-pixel spans and waits from the coarsest level whose bin is
// at most a pixel, or a rank's events inside the window read from the
// nearest checkpoint when even a base bin is wider than a pixel.

#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "timeline_data.h"
#include "timeline_summary.h"

namespace orrery::viewer {

/// The coarsest level whose bin is at most `pixel` seconds; nullopt if even level 0's is wider.
[[nodiscard]] std::optional<uint32_t> summary_level(const TimelineSummary& summary, double pixel);

/// One rank's row over [t0, t1] at `width` pixels from `level`'s bins: per pixel
/// with time, a merged span [begin, end, region, -1, busy, pieces, parts] (parts:
/// per kind [its dominant region, its time], largest first) and a wait
/// [begin, end, wait, count]; a bin across a pixel edge is shared in proportion.
[[nodiscard]] nlohmann::json summary_row(const TimelineSummary& summary, const analyzer::timeline::Definitions& defs,
                                         uint32_t rank, uint32_t level, double t0, double t1, uint32_t width);

/// A rank's events inside [t0, t1], from the last checkpoint at or before t0
/// until the first event after t1: the regions open at the checkpoint first
/// (outermost first), then those entered; regions open at the end end at t1.
struct WindowEvents {
  analyzer::timeline::RankTimeline trace;
  std::vector<uint32_t> instance_ids;  ///< per instance of `trace`, its index on the rank
  std::vector<CallWait> waits;         ///< the late-sender waits overlapping the window
  uint64_t events = 0;                 ///< events read
};
[[nodiscard]] WindowEvents read_window(const TimelineSummary& summary, const analyzer::timeline::Definitions& defs,
                                       uint32_t rank, double t0, double t1);

}  // namespace orrery::viewer

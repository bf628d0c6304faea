#include "orrery/trace/clock.h"

#include <algorithm>
#include <string>

#include "orrery/error.h"

namespace orrery::analyzer {

ClockMapping::ClockMapping(std::vector<ClockOffsetPoint> points) {
  if (points.empty()) return;
  for (const ClockOffsetPoint& point : points) {
    if (point.time < 0 || point.time >= kTimeLimit || point.offset <= -kOffsetLimit ||
        point.offset >= kOffsetLimit) {
      throw InputError("a clock offset of the trace (" + std::to_string(point.offset) + " ticks at " +
                       std::to_string(static_cast<uint64_t>(point.time)) +
                       ") is out of range: its local definitions are corrupt");
    }
  }
  std::sort(points.begin(), points.end(),
            [](const ClockOffsetPoint& a, const ClockOffsetPoint& b) { return a.time < b.time; });
  const ClockOffsetPoint first = points.front();
  const ClockOffsetPoint last = points.back();
  const double span = static_cast<double>(last.time - first.time);
  active_ = true;
  base_time_ = first.time;
  base_offset_ = static_cast<double>(first.offset);
  slope_ = span > 0 ? static_cast<double>(last.offset - first.offset) / span : 0.0;
}

}  // namespace orrery::analyzer

#include "orrery/analyzer/clock.h"

#include <algorithm>

namespace orrery::analyzer {

void apply_clock_offsets(LocalTrace& trace) {
  auto& points = trace.clock_offsets;
  if (points.empty()) return;
  std::sort(points.begin(), points.end(),
            [](const ClockOffsetPoint& a, const ClockOffsetPoint& b) { return a.time < b.time; });
  const ClockOffsetPoint first = points.front();
  const ClockOffsetPoint last = points.back();
  const double span = static_cast<double>(last.time - first.time);
  // Linear through the first and last measurement (extrapolated outside):
  // drift between two ping-pongs is all one can know.
  const double slope = span > 0 ? static_cast<double>(last.offset - first.offset) / span : 0.0;
  int64_t previous = INT64_MIN;
  for (std::size_t i = 0; i < trace.events.size(); ++i) {
    Event& event = trace.events[i];
    const double offset =
        static_cast<double>(first.offset) + slope * static_cast<double>(event.time - first.time);
    event.time += static_cast<int64_t>(offset);
    // Rounding must not reorder a rank's own events.
    if (event.time < previous) event.time = previous;
    previous = event.time;
  }
}

}  // namespace orrery::analyzer

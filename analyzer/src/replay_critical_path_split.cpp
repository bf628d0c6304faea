// The critical path's stretches split over call paths (critical_path_split.h).
// A short stretch is walked by IntervalProfiler's event walk into a list of
// a few entries (interval_walk.h), in one loop over all stretches; a wide
// one is IntervalProfiler::profile's.

#include "critical_path_split.h"

#include "interval_walk.h"

namespace orrery::analyzer::critical_path {

int64_t StretchSplitter::split_general(const Stretch& stretch, std::vector<CriticalPathFound>& out) {
  ++general_splits_;
  general_.profile(stretch.from, stretch.to, profile_, false);
  const uint32_t waiter = stretch.from == kNone ? kNone : trace_.events[stretch.from].ref();
  int64_t total = 0;
  for (auto [callpath, ticks] : profile_.time) {
    if (stretch.waiting > 0 && callpath == waiter) ticks -= stretch.waiting;
    if (ticks <= 0) continue;
    out.push_back(CriticalPathFound{callpath, ticks});
    total += ticks;
  }
  return total;
}

int64_t StretchSplitter::split_each(const Stretch* stretches, std::size_t count,
                                    std::vector<CriticalPathFound>& out) {
  const EventStore& events = trace_.events;
  const std::size_t event_count = events.size();
  int64_t total = 0;
  out.reserve(out.size() + count * kFew);  // the short splits' entries fit without a move
  for (std::size_t s = 0; s < count; ++s) {
    const Stretch& stretch = stretches[s];
    interval_walk::SlotList<kFew> few(general_.none_slot());
    if (stretch.from >= stretch.to || stretch.to >= event_count ||
        !general_.walk_events(stretch.from, stretch.to, few)) {
      total += split_general(stretch, out);
      continue;
    }
    // The waiting call's own entry less its waiting (a reference that is
    // no call path matches no slot); an entry with no time stays out, with
    // or without the waiting.
    const uint32_t waiter = few.start_ref;
    const int64_t waiting = stretch.waiting > 0 ? stretch.waiting : 0;
    few.for_each([&](uint32_t callpath, int64_t ticks) {
      if (callpath == waiter) ticks -= waiting;
      if (ticks <= 0) return;
      out.push_back(CriticalPathFound{callpath, ticks});
      total += ticks;
    });
  }
  return total;
}

}  // namespace orrery::analyzer::critical_path

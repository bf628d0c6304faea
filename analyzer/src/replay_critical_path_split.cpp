// The critical path's stretches split over call paths (critical_path_split.h).
// The time between two kept events belongs to the region open between
// them, less the folded callees that ran in that gap, as in
// IntervalProfiler::profile; a short stretch is summed in a list of a few
// entries, in one loop over all stretches.

#include "critical_path_split.h"

#include "orrery/analyzer/lower_bound_near.h"

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
  // Call paths as raw event references: "none" (Event::kRefMask) lies beyond
  // every call path, so it gets no time, as in IntervalProfiler.
  const CallPathNode* const nodes = tree_.nodes().data();
  const std::size_t callpaths = tree_.nodes().size();
  const auto parent_of = [&](uint32_t callpath) {
    return callpath >= callpaths ? kNone : nodes[callpath].parent;
  };
  const FoldedSpan* const spans = trace_.folded_spans.data();
  const std::size_t span_count = trace_.folded_spans.size();
  constexpr uint32_t kChunkMask = EventStore::kChunkSize - 1;
  constexpr uint32_t kEnterBits = static_cast<uint32_t>(EventKind::kEnter) << Event::kRefBits;
  constexpr uint32_t kLeaveBits = static_cast<uint32_t>(EventKind::kLeave) << Event::kRefBits;
  // One stretch's (call path, ticks) in the order first given time.
  std::pair<uint32_t, int64_t> few[kFew];
  std::size_t listed = 0;
  uint32_t waiter = kNone;  // the raw call path reference of the stretch's first event
  // Adds `ticks` to `callpath`'s entry; false if a new one does not fit.
  const auto add = [&](uint32_t callpath, int64_t ticks) __attribute__((always_inline)) {
    if (callpath >= callpaths || ticks == 0) return true;
    for (std::size_t k = 0; k < listed; ++k) {
      if (few[k].first == callpath) {
        few[k].second += ticks;
        return true;
      }
    }
    if (listed == kFew) return false;
    few[listed++] = {callpath, ticks};
    return true;
  };
  // The stretch into `few`; false if it is not a stretch from an event to a
  // later one, or touches more than kFew call paths.
  const auto sum_few = [&](uint32_t from, uint32_t to) __attribute__((always_inline)) {
    listed = 0;
    if (from >= to || to >= event_count) return false;  // kNone too
    const Event* event = &events[from];
    const uint32_t start_bits = event->kind_and_ref;
    waiter = start_bits & Event::kRefMask;
    uint32_t current = (start_bits & ~Event::kRefMask) == kEnterBits
                           ? start_bits & Event::kRefMask
                           : parent_of(events[event->link].kind_and_ref & Event::kRefMask);
    std::size_t span = 0;
    uint32_t next_span = kNone;
    if (span_count > 0) {
      span = lower_bound_near(spans, span_count, from + 1, span_hint_,
                              [](const FoldedSpan& s, uint32_t i) { return s.before_event < i; });
      if (span < span_count) next_span = spans[span].before_event;
    }
    int64_t previous = event->time;
    for (uint32_t i = from + 1;; ++i) {
      // The next event: in the same chunk unless `i` starts one.
      event = (i & kChunkMask) == 0 ? &events[i] : event + 1;
      int64_t gap = event->time - previous;
      previous = event->time;
      if (i == next_span) [[unlikely]] {
        for (; span < span_count && spans[span].before_event == i; ++span) {
          if (!add(spans[span].callpath, spans[span].exclusive)) return false;
          gap -= spans[span].exclusive;
        }
        next_span = span < span_count ? spans[span].before_event : kNone;
      }
      if (!add(current, gap)) return false;
      if (i == to) return true;
      const uint32_t bits = event->kind_and_ref;
      const uint32_t kind_bits = bits & ~Event::kRefMask;
      if (kind_bits == kEnterBits) {
        current = bits & Event::kRefMask;
      } else if (kind_bits == kLeaveBits) {
        // The Leave of the stretch's first call (the waiting call) needs no
        // lookup of its Enter.
        current = parent_of(event->link == from ? waiter : events[event->link].kind_and_ref & Event::kRefMask);
      }
    }
  };
  int64_t total = 0;
  out.reserve(out.size() + count * kFew);  // the short splits' entries fit without a move
  for (std::size_t s = 0; s < count; ++s) {
    const Stretch& stretch = stretches[s];
    if (!sum_few(stretch.from, stretch.to)) {
      total += split_general(stretch, out);
      continue;
    }
    // The waiting call's own entry less its waiting ("none" matches no call
    // path); an entry with no time stays out, with or without the waiting.
    const int64_t waiting = stretch.waiting > 0 ? stretch.waiting : 0;
    for (std::size_t k = 0; k < listed; ++k) {
      const int64_t ticks = few[k].second - (few[k].first == waiter ? waiting : 0);
      if (ticks <= 0) continue;
      out.push_back(CriticalPathFound{few[k].first, ticks});
      total += ticks;
    }
  }
  return total;
}

}  // namespace orrery::analyzer::critical_path

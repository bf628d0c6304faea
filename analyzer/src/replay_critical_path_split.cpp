// A short stretch of the critical path split over its call paths in a list
// of a few entries (critical_path_split.h). The time between two kept events
// belongs to the region open between them, less the folded callees that ran
// in that gap, as in IntervalProfiler::profile.

#include "critical_path_split.h"

#include "orrery/analyzer/lower_bound_near.h"

namespace orrery::analyzer::critical_path {

bool StretchSplitter::split_few(uint32_t from, uint32_t to) {
  const EventStore& events = trace_.events;
  if (from == kNone || from >= to || to >= events.size()) return false;
  // Call paths as raw event references: "none" (Event::kRefMask) lies beyond
  // every call path, so it gets no time, as in IntervalProfiler.
  const CallPathNode* const nodes = tree_.nodes().data();
  const std::size_t callpaths = tree_.nodes().size();
  const auto parent_of = [&](uint32_t callpath) {
    return callpath >= callpaths ? kNone : nodes[callpath].parent;
  };
  std::pair<uint32_t, int64_t>* const few = few_.data();
  std::size_t count = 0;
  // Adds `ticks` to `callpath`'s entry; false if a new one does not fit.
  const auto add = [&](uint32_t callpath, int64_t ticks) __attribute__((always_inline)) {
    if (callpath >= callpaths || ticks == 0) return true;
    for (std::size_t k = 0; k < count; ++k) {
      if (few[k].first == callpath) {
        few[k].second += ticks;
        return true;
      }
    }
    if (count == kFew) return false;
    few[count++] = {callpath, ticks};
    return true;
  };
  const Event* event = &events[from];
  const uint32_t start_bits = event->kind_and_ref;
  waiter_ = start_bits & Event::kRefMask;
  uint32_t current = start_bits >> Event::kRefBits == static_cast<uint32_t>(EventKind::kEnter)
                         ? start_bits & Event::kRefMask
                         : parent_of(events[event->link].kind_and_ref & Event::kRefMask);
  const FoldedSpan* const spans = trace_.folded_spans.data();
  const std::size_t span_count = trace_.folded_spans.size();
  std::size_t span = 0;
  uint32_t next_span = kNone;
  if (span_count > 0) {
    span = lower_bound_near(spans, span_count, from + 1, span_hint_,
                            [](const FoldedSpan& s, uint32_t i) { return s.before_event < i; });
    if (span < span_count) next_span = spans[span].before_event;
  }
  constexpr uint32_t kChunkMask = EventStore::kChunkSize - 1;
  constexpr uint32_t kEnterBits = static_cast<uint32_t>(EventKind::kEnter) << Event::kRefBits;
  constexpr uint32_t kLeaveBits = static_cast<uint32_t>(EventKind::kLeave) << Event::kRefBits;
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
    if (i == to) break;
    const uint32_t bits = event->kind_and_ref;
    const uint32_t kind_bits = bits & ~Event::kRefMask;
    if (kind_bits == kEnterBits) {
      current = bits & Event::kRefMask;
    } else if (kind_bits == kLeaveBits) {
      current = parent_of(events[event->link].kind_and_ref & Event::kRefMask);
    }
  }
  few_count_ = count;
  return true;
}

}  // namespace orrery::analyzer::critical_path

// Interval profiles for the delay analysis (synchronization_interval.h).
// The time between two consecutive kept events belongs to the innermost
// open region, minus the folded callees that ran in that gap.

#include "orrery/analyzer/synchronization_interval.h"

#include <algorithm>

#include "orrery/analyzer/lower_bound_near.h"

namespace orrery::analyzer {

std::vector<uint64_t> callpath_keys(const CallTree& tree) {
  // Parents have smaller ids than their children (call_tree.h).
  std::vector<uint64_t> keys(tree.size());
  const auto& nodes = tree.nodes();
  for (std::size_t c = 0; c < nodes.size(); ++c) {
    uint64_t key = nodes[c].parent == kNone ? 0x9e3779b97f4a7c15ULL : keys[nodes[c].parent];
    key ^= nodes[c].region + 0x9e3779b97f4a7c15ULL + (key << 6) + (key >> 2);
    key *= 0xff51afd7ed558ccdULL;
    keys[c] = key ^ (key >> 33);
  }
  return keys;
}

CallpathKeys::CallpathKeys(const CallTree& tree) : keys_(callpath_keys(tree)) {
  std::size_t capacity = 16;
  while (capacity < 2 * keys_.size()) capacity *= 2;
  slots_.assign(capacity, kNone);
  const std::size_t mask = capacity - 1;
  for (uint32_t c = 0; c < keys_.size(); ++c) {
    std::size_t slot = static_cast<std::size_t>(keys_[c]) & mask;
    while (slots_[slot] != kNone) slot = (slot + 1) & mask;
    slots_[slot] = c;
  }
}

uint32_t CallpathKeys::find(uint64_t key) const {
  // The keys are well-mixed hashes: their low bits index the table.
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t slot = static_cast<std::size_t>(key) & mask;; slot = (slot + 1) & mask) {
    const uint32_t callpath = slots_[slot];
    if (callpath == kNone || keys_[callpath] == key) return callpath;
  }
}

IntervalProfiler::IntervalProfiler(const LocalTrace& trace, const CallTree& tree,
                                   std::vector<std::pair<uint32_t, uint32_t>> waits,
                                   WaitingTicks waiting)
    : trace_(trace), tree_(tree), waits_(std::move(waits)), waiting_(waiting),
      scratch_(tree.size(), 0), stamp_(tree.size(), 0), touched_(tree.size(), 0) {}

void IntervalProfiler::profile(uint32_t from_leave, uint32_t to_enter, IntervalProfile& result,
                               bool list_waits) {
  result.time.clear();
  result.waits.clear();
  result.waiting = 0;
  const EventStore& events = trace_.events;
  if (to_enter == kNone || to_enter >= events.size()) return;
  // Sizes and data in locals: the stores below could alias the vectors'
  // members as far as the compiler knows, which would reload them per event.
  // Call paths are raw event references here: "none" (Event::kRefMask) is
  // beyond every call path, so parent_of and add ignore it.
  const CallPathNode* const nodes = tree_.nodes().data();
  const std::size_t node_count = tree_.nodes().size();
  const auto parent_of = [&](uint32_t callpath) {
    return callpath >= node_count ? kNone : nodes[callpath].parent;
  };
  // Per call path its ticks; a call path is listed (in `touched`, once) at
  // its first non-zero ticks, which is where the profile lists it.
  if (++stamp_now_ == 0) {  // wrapped: old stamps could match again
    std::fill(stamp_.begin(), stamp_.end(), 0);
    stamp_now_ = 1;
  }
  const uint32_t now = stamp_now_;
  int64_t* const scratch = scratch_.data();
  uint32_t* const stamp = stamp_.data();
  uint32_t* const touched = touched_.data();
  std::size_t listed = 0;
  const std::size_t callpaths = scratch_.size();
  const auto add = [&](uint32_t callpath, int64_t ticks) __attribute__((always_inline)) {
    if (callpath >= callpaths || ticks == 0) return;
    if (stamp[callpath] != now) {
      stamp[callpath] = now;
      scratch[callpath] = ticks;
      touched[listed++] = callpath;
    } else {
      scratch[callpath] += ticks;
    }
  };
  // The region open after the starting event.
  uint32_t current = kNone;
  uint32_t first = 0;
  if (from_leave != kNone && from_leave < to_enter) {
    const Event& start = events[from_leave];
    current = start.kind() == EventKind::kEnter
                  ? start.kind_and_ref & Event::kRefMask
                  : parent_of(events[start.link].kind_and_ref & Event::kRefMask);
    first = from_leave + 1;
  }
  const FoldedSpan* const spans = trace_.folded_spans.data();
  const std::size_t span_count = trace_.folded_spans.size();
  std::size_t span =
      span_count == 0
          ? 0
          : lower_bound_near(spans, span_count, first, span_hint_,
                             [](const FoldedSpan& s, uint32_t i) { return s.before_event < i; });
  // The time between two kept events belongs to the region open between
  // them, minus the folded callees that ran there (no gap before event 0).
  // The event store is chunked: walk a chunk by pointer, look the chunk up
  // again at each boundary. The next folded span's event is kept at hand.
  constexpr uint32_t kChunkMask = EventStore::kChunkSize - 1;
  constexpr uint32_t kEnterBits = static_cast<uint32_t>(EventKind::kEnter) << Event::kRefBits;
  constexpr uint32_t kLeaveBits = static_cast<uint32_t>(EventKind::kLeave) << Event::kRefBits;
  uint32_t next_span = span < span_count ? spans[span].before_event : kNone;
  const Event* event = &events[first];
  int64_t previous = first > 0 ? events[first - 1].time : event->time;
  for (uint32_t i = first;; ++i, ++event) {
    if ((i & kChunkMask) == 0) event = &events[i];
    int64_t gap = event->time - previous;
    previous = event->time;
    if (i == next_span) {
      for (; span < span_count && spans[span].before_event == i; ++span) {
        add(spans[span].callpath, spans[span].exclusive);
        gap -= spans[span].exclusive;
      }
      next_span = span < span_count ? spans[span].before_event : kNone;
    }
    add(current, gap);  // at event 0 nothing is open yet (current is none)
    if (i == to_enter) break;
    const uint32_t kind_bits = event->kind_and_ref & ~Event::kRefMask;
    if (kind_bits == kEnterBits) {
      current = event->kind_and_ref & Event::kRefMask;
    } else if (kind_bits == kLeaveBits) {
      current = parent_of(events[event->link].kind_and_ref & Event::kRefMask);
    }
  }
  // The waiting of this rank's wait states inside the interval is not the
  // call path's own time: it is waiting (which may have been passed on).
  const uint32_t low = from_leave == kNone ? 0 : from_leave;
  const auto* const waits = waits_.data();
  const std::size_t wait_count = waits_.size();
  std::size_t wait = lower_bound_near(waits, wait_count, low, wait_hint_,
                                      [](const auto& w, uint32_t call) { return w.first < call; });
  for (; wait < wait_count && waits[wait].first < to_enter; ++wait) {
    const int64_t ticks = waiting_[waits[wait].second];
    if (ticks <= 0) continue;
    add(events[waits[wait].first].kind_and_ref & Event::kRefMask, -ticks);
    result.waiting += ticks;
    if (list_waits) result.waits.emplace_back(waits[wait].second, ticks);
  }
  for (std::size_t k = 0; k < listed; ++k) {
    const uint32_t callpath = touched[k];
    if (scratch[callpath] > 0) result.time.emplace_back(callpath, scratch[callpath]);
  }
}

}  // namespace orrery::analyzer

#pragma once
// Internal to the analyzer: the walk behind IntervalProfiler's profiles
// (synchronization_interval.h), for the callers that take a profile as it
// is produced (IntervalProfiler::profile_into's sinks: the delay records
// write it straight into their send buffer, the delayer compares it as it
// comes) instead of from vectors, and for the critical path's split of its
// stretches (critical_path_split.h), which walks the same events.
//
// One walk, two tallies of the time per call path slot: a table of every
// slot (stamped per interval, so never cleared), which takes any interval
// (profile_into), and a list of a few slots, which refuses a slot beyond
// its capacity (the critical path's stretches: a handful of events in two
// or three call paths, no per-stretch set-up). A list for the delay
// analysis' intervals cost more instructions than the table (docs/analyzer.md).

#include <algorithm>
#include <cstdint>

#include "orrery/analyzer/lower_bound_near.h"
#include "orrery/analyzer/synchronization_interval.h"

namespace orrery::analyzer {
namespace interval_walk {

/// One interval's ticks in a table of all slots, the slots listed in the
/// order first set to non-zero ticks (the order the profile lists them).
/// Never refuses a slot.
struct SlotTable {
  int64_t* scratch;
  uint32_t* stamp;
  uint32_t* touched;
  uint32_t now;
  uint32_t listed = 0;
  void start_at(uint32_t /*ref*/) {}
  bool add(uint32_t slot, int64_t ticks) __attribute__((always_inline)) {
    if (ticks == 0) return true;
    if (stamp[slot] != now) {
      stamp[slot] = now;
      scratch[slot] = ticks;
      touched[listed++] = slot;
    } else {
      scratch[slot] += ticks;
    }
    return true;
  }
};

/// One interval's ticks in a list of at most `kCapacity` slots, in the
/// order first set to non-zero ticks; the slot "none" (`none` and beyond)
/// is not kept. Refuses (add: false) a slot that does not fit.
template <std::size_t kCapacity>
struct SlotList {
  explicit SlotList(uint32_t none_slot) : none(none_slot) {}
  uint32_t none;
  uint32_t listed = 0;
  uint32_t start_ref = Event::kRefMask;  ///< the call path reference of the starting event
  uint32_t slots[kCapacity];  // the first `listed` are set
  int64_t ticks[kCapacity];
  void start_at(uint32_t ref) { start_ref = ref; }
  bool add(uint32_t slot, int64_t more) __attribute__((always_inline)) {
    if (more == 0 || slot >= none) return true;
    for (uint32_t k = 0; k < listed; ++k) {
      if (slots[k] == slot) {
        ticks[k] += more;
        return true;
      }
    }
    if (listed == kCapacity) return false;
    slots[listed] = slot;
    ticks[listed++] = more;
    return true;
  }
  template <class Each>
  void for_each(Each each) const {
    for (uint32_t k = 0; k < listed; ++k) each(slots[k], ticks[k]);
  }
};

constexpr uint32_t kEnterBits = static_cast<uint32_t>(EventKind::kEnter) << Event::kRefBits;
constexpr uint32_t kLeaveBits = static_cast<uint32_t>(EventKind::kLeave) << Event::kRefBits;
constexpr uint32_t kChunkMask = EventStore::kChunkSize - 1;

}  // namespace interval_walk

template <class Tally>
__attribute__((always_inline)) inline bool IntervalProfiler::walk_events(uint32_t from_leave,
                                                                   uint32_t to_enter, Tally& tally) {
  const EventStore& events = trace_.events;
  // In locals: stores through the tally's pointers could alias members as
  // far as the compiler knows, which would reload them per event.
  const uint32_t none = none_;
  const uint32_t* const parent_slot = parent_slot_.data();
  const auto slot_of = [none](uint32_t ref) { return ref < none ? ref : none; };
  // The call path open after the starting event; the walk starts after it.
  // An interval that starts at an Enter (the critical path's stretches, the
  // delayer's intervals from a posting call) usually meets that call's
  // Leave: its parent is known without looking the Enter up again.
  uint32_t current = none;
  uint32_t first = 0;
  uint32_t start_enter = kNone, start_parent = none;
  const Event* event = nullptr;
  int64_t previous = 0;
  if (from_leave != kNone && from_leave < to_enter) {
    const Event& start = events[from_leave];
    const uint32_t kind_bits = start.kind_and_ref & ~Event::kRefMask;
    const uint32_t start_ref = start.kind_and_ref & Event::kRefMask;
    tally.start_at(start_ref);
    if (kind_bits == interval_walk::kEnterBits) {
      current = slot_of(start_ref);
      start_enter = from_leave;
      start_parent = start_ref < none ? parent_slot[start_ref] : none;
    } else {  // a Leave: the parent of its call's call path
      const uint32_t ref = events[start.link].kind_and_ref & Event::kRefMask;
      current = ref < none ? parent_slot[ref] : none;
    }
    previous = start.time;
    first = from_leave + 1;
    event = (first & interval_walk::kChunkMask) == 0 ? &events[first] : &start + 1;
  } else {
    event = &events[0];
    previous = event->time;  // no gap before event 0
  }
  // The slot open after an event: an Enter's call path, a Leave's parent
  // (the parent of its Enter's call path); the other kinds change nothing.
  const auto slot_after = [&events, none, parent_slot, start_enter, start_parent](
                              const Event& at, uint32_t open) __attribute__((always_inline)) {
    const uint32_t kind_bits = at.kind_and_ref & ~Event::kRefMask;
    if (kind_bits == interval_walk::kEnterBits) {
      const uint32_t ref = at.kind_and_ref & Event::kRefMask;
      return ref < none ? ref : none;
    }
    if (kind_bits != interval_walk::kLeaveBits) return open;
    if (at.link == start_enter) return start_parent;
    const uint32_t ref = events[at.link].kind_and_ref & Event::kRefMask;
    return ref < none ? parent_slot[ref] : none;
  };
  const FoldedSpan* const spans = trace_.folded_spans.data();
  const std::size_t span_count = trace_.folded_spans.size();
  std::size_t span = span_count;
  if (span_count != 0) {
    span = lower_bound_near(spans, span_count, first, span_hint_,
                            [](const FoldedSpan& s, uint32_t i) { return s.before_event < i; });
  }
  // The time between two kept events belongs to the call path open between
  // them, minus the folded callees that ran in that gap (before the event
  // they are recorded at). The event store is chunked: walked by pointer,
  // looked up again at a chunk's start.
  uint32_t next_span = span < span_count ? spans[span].before_event : kNone;
  for (uint32_t i = first;; ++i) {
    int64_t gap = event->time - previous;
    previous = event->time;
    if (i == next_span) [[unlikely]] {
      for (; span < span_count && spans[span].before_event == i; ++span) {
        if (!tally.add(slot_of(spans[span].callpath), spans[span].exclusive)) return false;
        gap -= spans[span].exclusive;
      }
      next_span = span < span_count ? spans[span].before_event : kNone;
    }
    if (!tally.add(current, gap)) return false;
    if (i == to_enter) return true;
    current = slot_after(*event, current);
    event = ((i + 1) & interval_walk::kChunkMask) == 0 ? &events[i + 1] : event + 1;
  }
}

template <class Out>
int64_t IntervalProfiler::profile_into(uint32_t from_leave, uint32_t to_enter, bool list_waits,
                                       Out& out) {
  if (to_enter == kNone || to_enter >= trace_.events.size()) return 0;
  if (++stamp_now_ == 0) {  // wrapped: old stamps could match again
    std::fill(stamp_.begin(), stamp_.end(), 0);
    stamp_now_ = 1;
  }
  interval_walk::SlotTable tally{scratch_.data(), stamp_.data(), touched_.data(), stamp_now_};
  walk_events(from_leave, to_enter, tally);
  // The waiting of this rank's wait states inside the interval is not the
  // call path's own time: it is waiting (which may have been passed on).
  const uint32_t none = none_;
  int64_t waiting = 0;
  const uint32_t low = from_leave == kNone ? 0 : from_leave;
  const auto* const waits = waits_.data();
  const std::size_t wait_count = waits_.size();
  std::size_t wait = lower_bound_near(waits, wait_count, low, wait_hint_,
                                      [](const auto& w, uint32_t call) { return w.first < call; });
  for (; wait < wait_count && waits[wait].first < to_enter; ++wait) {
    const int64_t ticks = waiting_[waits[wait].second];
    if (ticks <= 0) continue;
    const uint32_t ref = trace_.events[waits[wait].first].kind_and_ref & Event::kRefMask;
    tally.add(ref < none ? ref : none, -ticks);
    waiting += ticks;
    if (list_waits) out.wait(waits[wait].second, ticks);
  }
  for (uint32_t t = 0; t < tally.listed; ++t) {
    const uint32_t slot = tally.touched[t];
    const int64_t ticks = tally.scratch[slot];
    if (slot != none && ticks > 0) out.time(slot, ticks);
  }
  return waiting;
}

}  // namespace orrery::analyzer

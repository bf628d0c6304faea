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

namespace {

/// One interval's ticks per slot, the slots listed in the order first set
/// to non-zero ticks (the order the profile lists them).
struct Tally {
  int64_t* scratch;
  uint32_t* stamp;
  uint32_t* touched;
  uint32_t now;
  uint32_t listed = 0;
  void add(uint32_t slot, int64_t ticks) __attribute__((always_inline)) {
    if (ticks == 0) return;
    if (stamp[slot] != now) {
      stamp[slot] = now;
      scratch[slot] = ticks;
      touched[listed++] = slot;
    } else {
      scratch[slot] += ticks;
    }
  }
};

constexpr uint32_t kEnterBits = static_cast<uint32_t>(EventKind::kEnter) << Event::kRefBits;
constexpr uint32_t kLeaveBits = static_cast<uint32_t>(EventKind::kLeave) << Event::kRefBits;
constexpr uint32_t kChunkMask = EventStore::kChunkSize - 1;

/// Room for `more` entries after the first `used` of `items` (raw storage:
/// its size only grows, by doubling).
template <class T>
__attribute__((noinline)) void grow(std::vector<T>& items, std::size_t needed) {
  items.resize(std::max(2 * items.size(), needed + 64));
}
template <class T>
inline T* room(std::vector<T>& items, std::size_t used, std::size_t more) {
  if (used + more > items.size()) [[unlikely]] grow(items, used + more);
  return items.data() + used;
}

}  // namespace

/// profile()'s output: the vectors of one IntervalProfile.
struct IntervalProfiler::SingleOut {
  IntervalProfile& profile;
  void wait(uint32_t wait, int64_t ticks) { profile.waits.emplace_back(wait, ticks); }
  void begin_times(std::size_t) {}
  void time(uint32_t callpath, int64_t ticks) { profile.time.emplace_back(callpath, ticks); }
  void end_times() {}
};

/// profile_all()'s output: the flat arrays of IntervalProfiles.
struct IntervalProfiler::FlatOut {
  IntervalProfiles& profiles;
  std::size_t times = 0, waits = 0;  ///< entries used so far
  std::pair<uint32_t, int64_t>* next = nullptr;
  void wait(uint32_t wait, int64_t ticks) { *room(profiles.waits_, waits++, 1) = {wait, ticks}; }
  void begin_times(std::size_t most) { next = room(profiles.time_, times, most); }
  void time(uint32_t callpath, int64_t ticks) { *next++ = {callpath, ticks}; }
  void end_times() { times = static_cast<std::size_t>(next - profiles.time_.data()); }
};

IntervalProfiler::IntervalProfiler(const LocalTrace& trace, const CallTree& tree,
                                   std::vector<std::pair<uint32_t, uint32_t>> waits,
                                   WaitingTicks waiting)
    : trace_(trace), tree_(tree), waits_(std::move(waits)), waiting_(waiting),
      none_(static_cast<uint32_t>(tree.size())), parent_slot_(tree.size()),
      scratch_(tree.size() + 1, 0), stamp_(tree.size() + 1, 0), touched_(tree.size() + 1, 0) {
  // Slot tree.size() stands for "no call path" (before the first Enter, or
  // a reference that is none): its time is summed and never listed.
  for (std::size_t c = 0; c < tree.size(); ++c) {
    const uint32_t parent = tree.nodes()[c].parent;
    parent_slot_[c] = parent < none_ ? parent : none_;
  }
}

IntervalProfiler::~IntervalProfiler() = default;

void IntervalProfiler::profile(uint32_t from_leave, uint32_t to_enter, IntervalProfile& result,
                               bool list_waits) {
  result.time.clear();
  result.waits.clear();
  SingleOut out{result};
  result.waiting = profile_into(from_leave, to_enter, list_waits, out);
}

void IntervalProfiler::profile_all(const std::vector<Interval>& intervals, IntervalProfiles& out,
                                   bool list_waits) {
  out.time_end_.resize(intervals.size());
  out.waits_end_.resize(intervals.size());
  out.waiting_.resize(intervals.size());
  FlatOut flat{out};
  for (std::size_t k = 0; k < intervals.size(); ++k) {
    out.waiting_[k] = profile_into(intervals[k].from, intervals[k].to, list_waits, flat);
    out.time_end_[k] = static_cast<uint32_t>(flat.times);
    out.waits_end_[k] = static_cast<uint32_t>(flat.waits);
  }
}

template <class Out>
int64_t IntervalProfiler::profile_into(uint32_t from_leave, uint32_t to_enter, bool list_waits,
                                       Out& out) {
  const EventStore& events = trace_.events;
  if (to_enter == kNone || to_enter >= events.size()) return 0;
  if (++stamp_now_ == 0) {  // wrapped: old stamps could match again
    std::fill(stamp_.begin(), stamp_.end(), 0);
    stamp_now_ = 1;
  }
  // In locals: stores through the pointers below could alias members as far
  // as the compiler knows, which would reload them per event.
  Tally tally{scratch_.data(), stamp_.data(), touched_.data(), stamp_now_};
  const uint32_t none = none_;
  const uint32_t* const parent_slot = parent_slot_.data();
  const auto slot_of = [none](uint32_t ref) { return ref < none ? ref : none; };
  // The slot open after an event: an Enter's call path, a Leave's parent
  // (the parent of its Enter's call path); the other kinds change nothing.
  const auto slot_after = [&events, none, parent_slot](const Event& event, uint32_t current)
      __attribute__((always_inline)) {
    const uint32_t kind_bits = event.kind_and_ref & ~Event::kRefMask;
    if (kind_bits == kEnterBits) {
      const uint32_t ref = event.kind_and_ref & Event::kRefMask;
      return ref < none ? ref : none;
    }
    if (kind_bits != kLeaveBits) return current;
    const uint32_t ref = events[event.link].kind_and_ref & Event::kRefMask;
    return ref < none ? parent_slot[ref] : none;
  };
  // The call path open after the starting event; the walk starts after it.
  uint32_t current = none;
  uint32_t first = 0;
  const Event* event = nullptr;
  int64_t previous = 0;
  if (from_leave != kNone && from_leave < to_enter) {
    const Event& start = events[from_leave];
    const uint32_t kind_bits = start.kind_and_ref & ~Event::kRefMask;
    if (kind_bits == kEnterBits) {
      current = slot_of(start.kind_and_ref & Event::kRefMask);
    } else {  // a Leave: the parent of its call's call path
      const uint32_t ref = events[start.link].kind_and_ref & Event::kRefMask;
      current = ref < none ? parent_slot[ref] : none;
    }
    previous = start.time;
    first = from_leave + 1;
    event = (first & kChunkMask) == 0 ? &events[first] : &start + 1;
  } else {
    event = &events[0];
    previous = event->time;  // no gap before event 0
  }
  const FoldedSpan* const spans = trace_.folded_spans.data();
  const std::size_t span_count = trace_.folded_spans.size();
  std::size_t span = span_count;
  if (span_count != 0) {
    span = lower_bound_near(spans, span_count, first, span_hint_,
                            [](const FoldedSpan& s, uint32_t i) { return s.before_event < i; });
  }
  // The time between two kept events belongs to the call path open between
  // them, minus the folded callees that ran there (walked in stretches up to
  // the next event with folded spans). The event store is chunked: walked by
  // pointer, looked up again at a chunk's start.
  for (uint32_t i = first;; ++i) {
    const uint32_t stop =
        span < span_count && spans[span].before_event < to_enter ? spans[span].before_event
                                                                 : to_enter;
    for (; i < stop; ++i) {
      tally.add(current, event->time - previous);
      previous = event->time;
      current = slot_after(*event, current);
      event = ((i + 1) & kChunkMask) == 0 ? &events[i + 1] : event + 1;
    }
    int64_t gap = event->time - previous;
    previous = event->time;
    for (; span < span_count && spans[span].before_event == stop; ++span) {
      tally.add(slot_of(spans[span].callpath), spans[span].exclusive);
      gap -= spans[span].exclusive;
    }
    tally.add(current, gap);
    if (stop == to_enter) break;
    current = slot_after(*event, current);
    event = ((i + 1) & kChunkMask) == 0 ? &events[i + 1] : event + 1;
  }
  // The waiting of this rank's wait states inside the interval is not the
  // call path's own time: it is waiting (which may have been passed on).
  int64_t waiting = 0;
  const uint32_t low = from_leave == kNone ? 0 : from_leave;
  const auto* const waits = waits_.data();
  const std::size_t wait_count = waits_.size();
  std::size_t wait = lower_bound_near(waits, wait_count, low, wait_hint_,
                                      [](const auto& w, uint32_t call) { return w.first < call; });
  for (; wait < wait_count && waits[wait].first < to_enter; ++wait) {
    const int64_t ticks = waiting_[waits[wait].second];
    if (ticks <= 0) continue;
    tally.add(slot_of(events[waits[wait].first].kind_and_ref & Event::kRefMask), -ticks);
    waiting += ticks;
    if (list_waits) out.wait(waits[wait].second, ticks);
  }
  out.begin_times(tally.listed);
  for (std::size_t t = 0; t < tally.listed; ++t) {
    const uint32_t slot = tally.touched[t];
    const int64_t ticks = tally.scratch[slot];
    if (slot != none && ticks > 0) out.time(slot, ticks);
  }
  out.end_times();
  return waiting;
}

}  // namespace orrery::analyzer

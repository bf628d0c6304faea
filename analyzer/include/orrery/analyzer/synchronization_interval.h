#pragma once
// The synchronization interval of a wait state (Böhme et al., "Identifying
// the root causes of wait states in large-scale parallel applications",
// ICPP 2010): the stretch of a process's time line from its previous
// synchronization with the partner to the call that synchronized. The delay
// analysis compares the time two processes spent per call path in it.
// Folded call paths (trace.h) are included through LocalTrace::folded_spans,
// so a computation without communication (a `relax` between two halo
// exchanges) keeps its own call path.

#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "orrery/trace/trace.h"

namespace orrery::analyzer {

/// One call path's identity across ranks: a hash of its chain of region ids
/// (region ids are global), per local call path.
[[nodiscard]] std::vector<uint64_t> callpath_keys(const CallTree& tree);

/// The call path keys of one rank and the way back from a key (another
/// rank's call path) to this rank's call path with the same chain of
/// regions: an open-addressing table, no sorting per comparison.
class CallpathKeys {
 public:
  explicit CallpathKeys(const CallTree& tree);
  [[nodiscard]] uint64_t key(uint32_t callpath) const { return keys_[callpath]; }
  [[nodiscard]] std::size_t size() const { return keys_.size(); }
  /// This rank's call path with `key`; kNone if it has none. (Inline: the
  /// delayer looks up every entry of every record.)
  [[nodiscard]] uint32_t find(uint64_t key) const {
    // The keys are well-mixed hashes: their low bits index the table.
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t slot = static_cast<std::size_t>(key) & mask;; slot = (slot + 1) & mask) {
      const uint32_t callpath = slots_[slot];
      if (callpath == kNone || keys_[callpath] == key) return callpath;
    }
  }

 private:
  std::vector<uint64_t> keys_;
  std::vector<uint32_t> slots_;  ///< call path per slot, kNone if empty; a power of two
};

/// Where one rank's time went in an interval: non-waiting exclusive time per
/// call path, its waiting (in the wait states it holds), and those waits.
struct IntervalProfile {
  std::vector<std::pair<uint32_t, int64_t>> time;  ///< (local call path, ticks), waiting excluded
  int64_t waiting = 0;                             ///< ticks spent in wait states
  std::vector<std::pair<uint32_t, int64_t>> waits; ///< (wait-state index, its waiting)
};

/// The waiting (ticks) of wait state k, read where the caller keeps it:
/// `stride` bytes apart from `first` (a field of its wait-state records), not
/// a copy of millions of values.
struct WaitingTicks {
  const int64_t* first = nullptr;
  std::size_t stride = sizeof(int64_t);
  [[nodiscard]] int64_t operator[](std::size_t k) const {
    int64_t ticks = 0;
    std::memcpy(&ticks, reinterpret_cast<const char*>(first) + k * stride, sizeof ticks);
    return ticks;
  }
};

/// Splits intervals of one rank's kept events into per-call-path time
/// (`tree`: the rank's call tree, which the pipeline takes out of the trace).
class IntervalProfiler {
 public:
  /// `waits`: (Enter index of the waiting call, wait-state index), sorted by
  /// Enter index; `waiting[k]` the ticks wait state k waited (kept by the
  /// caller while the profiler lives).
  IntervalProfiler(const LocalTrace& trace, const CallTree& tree,
                   std::vector<std::pair<uint32_t, uint32_t>> waits, WaitingTicks waiting);
  ~IntervalProfiler();
  IntervalProfiler(const IntervalProfiler&) = delete;
  IntervalProfiler& operator=(const IntervalProfiler&) = delete;

  /// The profile from the event `from_leave` (a Leave, or the Enter of a
  /// call whose own time then counts; kNone: the trace's start) to the Enter
  /// event `to_enter` (exclusive), into `out` (its vectors are reused: no
  /// allocation once they are large enough). Without `list_waits`,
  /// `out.waits` stays empty (the waiting is still left out of the call
  /// paths and summed in `out.waiting`).
  void profile(uint32_t from_leave, uint32_t to_enter, IntervalProfile& out,
               bool list_waits = true);

  /// profile() handed to `out` as it is found, for callers that would only
  /// copy it (defined in the analyzer's internal interval_walk.h): first
  /// out.wait(wait state, ticks) per own wait state (with `list_waits`),
  /// then out.time(call path, ticks) per entry in the profile's order;
  /// returns the waiting.
  template <class Out>
  int64_t profile_into(uint32_t from_leave, uint32_t to_enter, bool list_waits, Out& out);

  /// The event walk of profile_into alone (interval_walk.h): the time from
  /// `from_leave` to `to_enter` (< the trace's events) per call path slot
  /// into `tally` (its add(slot, ticks) may refuse: then false; its
  /// start_at(ref) hears the starting event's call path reference), folded
  /// spans included, this rank's wait states not subtracted. Slots are call
  /// paths; none_slot() and beyond stand for no call path.
  template <class Tally>
  bool walk_events(uint32_t from_leave, uint32_t to_enter, Tally& tally);
  [[nodiscard]] uint32_t none_slot() const { return none_; }

 private:
  struct SingleOut;

  const LocalTrace& trace_;
  std::vector<std::pair<uint32_t, uint32_t>> waits_;
  WaitingTicks waiting_;
  /// Slots are the call paths and, last, one for "none" (summed, never
  /// listed), so that the walk never checks a call path's range.
  uint32_t none_;
  std::vector<uint32_t> parent_slot_;  ///< per call path, its parent's slot
  std::vector<int64_t> scratch_;    ///< per slot, valid where stamp_ is this interval's
  std::vector<uint32_t> stamp_;     ///< per slot, the interval that last set scratch_
  std::vector<uint32_t> touched_;   ///< this interval's slots, in the order first set
  uint32_t stamp_now_ = 0;
  std::size_t span_hint_ = 0;       ///< where the last search of folded_spans ended
  std::size_t wait_hint_ = 0;       ///< and of waits_
};

}  // namespace orrery::analyzer

#pragma once
// Internal to the critical-path analysis (replay_critical_path.cpp): splits
// one stretch of the path on this process over its call paths. The result
// is IntervalProfiler::profile's for the stretch, less the waiting of the
// call the stretch starts at: the path does not wait, it moves to the
// process that caused the wait.
//
// The path's stretches on the communication-only benchmark trace are three
// events long (a receive's Enter to the next send's Enter), so the fixed
// cost of a general profile (stamps per call path, searches of the folded
// spans and the wait states, the result vector) is most of it. A stretch
// that touches at most kFew call paths is walked by IntervalProfiler's
// event walk (interval_walk.h) into a list of that many entries; a wider
// one falls back to IntervalProfiler::profile.

#include <cstdint>
#include <vector>

#include "orrery/analyzer/synchronization_interval.h"
#include "orrery/replay/critical_path_events.h"
#include "orrery/trace/trace.h"

namespace orrery::analyzer::critical_path {

/// One stretch of the path on this process: from the Enter `from` (kNone:
/// the trace's start) to the Enter `to`; `waiting` the waiting of the call
/// at `from`, which is not on the path.
struct Stretch {
  uint32_t from = kNone;
  uint32_t to = kNone;
  int64_t waiting = 0;
};

class StretchSplitter {
 public:
  /// The call paths a stretch may touch to be split without IntervalProfiler.
  static constexpr std::size_t kFew = 8;

  StretchSplitter(const LocalTrace& trace, const CallTree& tree)
      : trace_(trace), general_(trace, tree, {}, {}) {}

  /// Appends to `out`, stretch after stretch, every call path with time in
  /// the stretch, less the waiting at the call path of `from`, where that
  /// leaves ticks > 0; per stretch in the order IntervalProfiler::profile
  /// lists them. Returns the ticks appended. One loop over all stretches:
  /// a stretch costs its events, not a call.
  int64_t split_each(const Stretch* stretches, std::size_t count, std::vector<CriticalPathFound>& out);

  /// split_each for one stretch, calling `emit(call path, ticks)`.
  template <class Emit>
  void split(uint32_t from, uint32_t to, int64_t waiting, Emit&& emit) {
    one_.clear();
    const Stretch stretch{from, to, waiting};
    split_each(&stretch, 1, one_);
    for (const CriticalPathFound& found : one_) emit(found.callpath, found.ticks);
  }
  /// How many stretches IntervalProfiler split (the tests' check of the fallback).
  [[nodiscard]] uint64_t general_splits() const { return general_splits_; }

 private:
  /// The general split of one stretch, appended to `out`; returns its ticks.
  int64_t split_general(const Stretch& stretch, std::vector<CriticalPathFound>& out);

  const LocalTrace& trace_;
  IntervalProfiler general_;  ///< its walk for every stretch, its profile for wide ones
  IntervalProfile profile_;
  std::vector<CriticalPathFound> one_;
  uint64_t general_splits_ = 0;
};

}  // namespace orrery::analyzer::critical_path

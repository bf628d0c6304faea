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
// that touches at most kFew call paths is split in a list of that many
// entries instead; a longer one falls back to IntervalProfiler.

#include <array>
#include <cstdint>
#include <utility>

#include "orrery/analyzer/synchronization_interval.h"
#include "orrery/trace/trace.h"

namespace orrery::analyzer::critical_path {

class StretchSplitter {
 public:
  /// The call paths a stretch may touch to be split without IntervalProfiler.
  static constexpr std::size_t kFew = 8;

  StretchSplitter(const LocalTrace& trace, const CallTree& tree)
      : trace_(trace), tree_(tree), general_(trace, tree, {}, {}) {}

  /// Calls `emit(call path, ticks)` for every call path with time in the
  /// stretch from the Enter `from` (kNone: the trace's start) to the Enter
  /// `to`, less `waiting` ticks at the call path of `from`, where that leaves
  /// ticks > 0; in the order IntervalProfiler::profile lists them.
  template <class Emit>
  void split(uint32_t from, uint32_t to, int64_t waiting, Emit&& emit) {
    if (split_few(from, to)) {
      // The waiting call's own entry (the raw reference of `from`; "none"
      // matches no call path).
      for (std::size_t k = 0; k < few_count_; ++k) {
        int64_t ticks = few_[k].second;
        if (ticks <= 0) continue;
        if (waiting > 0 && few_[k].first == waiter_) ticks -= waiting;
        if (ticks > 0) emit(few_[k].first, ticks);
      }
      return;
    }
    ++general_splits_;
    general_.profile(from, to, profile_, false);
    const uint32_t waiter = from == kNone ? kNone : trace_.events[from].ref();
    for (auto [callpath, ticks] : profile_.time) {
      if (waiting > 0 && callpath == waiter) ticks -= waiting;
      if (ticks > 0) emit(callpath, ticks);
    }
  }
  /// How many stretches IntervalProfiler split (the tests' check of the fallback).
  [[nodiscard]] uint64_t general_splits() const { return general_splits_; }

 private:
  /// The stretch's time per call path into few_ (in the order first given
  /// time, as IntervalProfiler lists them) and waiter_; false if it is not a stretch
  /// from an event inside the trace to a later one, or touches more than
  /// kFew call paths.
  bool split_few(uint32_t from, uint32_t to);

  const LocalTrace& trace_;
  const CallTree& tree_;
  IntervalProfiler general_;
  IntervalProfile profile_;
  std::array<std::pair<uint32_t, int64_t>, kFew> few_{};
  std::size_t few_count_ = 0;
  uint32_t waiter_ = kNone;  ///< the raw call path reference of the stretch's first event
  std::size_t span_hint_ = 0;  ///< where the last search of the folded spans ended
  uint64_t general_splits_ = 0;
};

}  // namespace orrery::analyzer::critical_path

// IntervalProfiler (synchronization_interval.h) against its first
// implementation, kept here as the reference: every interval of randomly
// built traces — nested regions, folded spans (some longer than their gap,
// some at call paths nobody entered), Enters of no call path, communication
// events, wait states with and without waiting — asked in any order, as
// profile() and as profile_into() hands it to a sink (the delay records'
// way), must give the same call paths in the same order with the same
// ticks, the same waiting and the same wait list.

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <utility>
#include <vector>

#include "interval_walk.h"
#include "orrery/analyzer/synchronization_interval.h"

namespace orrery::testing {
namespace {

using analyzer::CallTree;
using analyzer::Event;
using analyzer::EventKind;
using analyzer::FoldedSpan;
using analyzer::IntervalProfile;
using analyzer::IntervalProfiler;
using analyzer::kNone;
using analyzer::LocalTrace;
using analyzer::WaitingTicks;

/// The first IntervalProfiler::profile (before profile_into), as it was:
/// a call path is listed at its first non-zero ticks; waiting is left out.
IntervalProfile reference_profile(const LocalTrace& trace, const CallTree& tree,
                                  const std::vector<std::pair<uint32_t, uint32_t>>& waits,
                                  const std::vector<int64_t>& waiting, uint32_t from_leave,
                                  uint32_t to_enter, bool list_waits) {
  IntervalProfile result;
  const auto& events = trace.events;
  if (to_enter == kNone || to_enter >= events.size()) return result;
  const std::size_t node_count = tree.nodes().size();
  const auto parent_of = [&](uint32_t callpath) {
    return callpath >= node_count ? kNone : tree.nodes()[callpath].parent;
  };
  std::vector<int64_t> scratch(node_count, 0);
  std::vector<bool> listed(node_count, false);
  std::vector<uint32_t> touched;
  const auto add = [&](uint32_t callpath, int64_t ticks) {
    if (callpath >= node_count || ticks == 0) return;
    if (!listed[callpath]) {
      listed[callpath] = true;
      touched.push_back(callpath);
    }
    scratch[callpath] += ticks;
  };
  uint32_t current = kNone;
  uint32_t first = 0;
  if (from_leave != kNone && from_leave < to_enter) {
    const Event& start = events[from_leave];
    current = start.kind() == EventKind::kEnter
                  ? start.kind_and_ref & Event::kRefMask
                  : parent_of(events[start.link].kind_and_ref & Event::kRefMask);
    first = from_leave + 1;
  }
  const auto& spans = trace.folded_spans;
  std::size_t span = static_cast<std::size_t>(
      std::lower_bound(spans.begin(), spans.end(), first,
                       [](const FoldedSpan& s, uint32_t i) { return s.before_event < i; }) -
      spans.begin());
  int64_t previous = first > 0 ? events[first - 1].time : events[first].time;
  for (uint32_t i = first;; ++i) {
    int64_t gap = events[i].time - previous;
    previous = events[i].time;
    for (; span < spans.size() && spans[span].before_event == i; ++span) {
      add(spans[span].callpath, spans[span].exclusive);
      gap -= spans[span].exclusive;
    }
    add(current, gap);
    if (i == to_enter) break;
    if (events[i].kind() == EventKind::kEnter) {
      current = events[i].kind_and_ref & Event::kRefMask;
    } else if (events[i].kind() == EventKind::kLeave) {
      current = parent_of(events[events[i].link].kind_and_ref & Event::kRefMask);
    }
  }
  const uint32_t low = from_leave == kNone ? 0 : from_leave;
  for (const auto& [call, k] : waits) {
    if (call < low || call >= to_enter) continue;
    const int64_t ticks = waiting[k];
    if (ticks <= 0) continue;
    add(events[call].kind_and_ref & Event::kRefMask, -ticks);
    result.waiting += ticks;
    if (list_waits) result.waits.emplace_back(k, ticks);
  }
  for (const uint32_t callpath : touched) {
    if (scratch[callpath] > 0) result.time.emplace_back(callpath, scratch[callpath]);
  }
  return result;
}

/// One interval to profile.
struct Interval {
  uint32_t from = kNone;
  uint32_t to = kNone;
};

/// A sink for profile_into: what it was handed, in order.
struct Collected {
  IntervalProfile profile;
  void wait(uint32_t wait, int64_t ticks) { profile.waits.emplace_back(wait, ticks); }
  void time(uint32_t callpath, int64_t ticks) { profile.time.emplace_back(callpath, ticks); }
};

/// A random well-nested trace of one rank: Enters (sometimes of no call
/// path), Leaves, communication events between them, folded spans.
struct RandomTrace {
  LocalTrace trace;
  CallTree tree;
  std::vector<uint32_t> enters, leaves;
  std::vector<std::pair<uint32_t, uint32_t>> waits;  // (Enter index, wait state)
  std::vector<int64_t> waiting;

  explicit RandomTrace(std::mt19937& random) {
    std::vector<uint32_t> open;  // Enter indices
    std::vector<uint32_t> paths;
    int64_t time = 1000;
    const auto push = [&](EventKind kind, uint32_t ref, uint32_t link) {
      time += static_cast<int64_t>(random() % 4 == 0 ? 0 : random() % 50);
      return trace.events.push_back(Event::make(time, kind, ref, link));
    };
    const std::size_t length = 20 + random() % 300;
    while (trace.events.size() < length || !open.empty()) {
      const uint32_t roll = random() % 10;
      if (trace.events.size() < length && (open.empty() || roll < 4) && open.size() < 6) {
        const uint32_t parent = paths.empty() ? kNone : paths.back();
        uint32_t callpath = tree.child(parent, random() % 5);
        if (random() % 15 == 0) callpath = Event::kRefMask;  // an Enter of no call path
        const uint32_t enter = push(EventKind::kEnter, callpath, 0);
        open.push_back(enter);
        paths.push_back(callpath == Event::kRefMask ? parent : callpath);
        enters.push_back(enter);
      } else if (trace.events.size() < length && roll < 6) {
        push(random() % 2 == 0 ? EventKind::kSend : EventKind::kRecv, Event::kRefMask, 0);
      } else if (!open.empty()) {
        const uint32_t enter = open.back();
        open.pop_back();
        paths.pop_back();
        const uint32_t leave = push(EventKind::kLeave, Event::kRefMask, enter);
        trace.events[enter].link = leave;
        leaves.push_back(leave);
      }
    }
    // Folded spans before random events, in event order, several at one
    // event; their call paths may be any (one beyond the tree too).
    for (uint32_t i = 0; i < trace.events.size(); ++i) {
      while (random() % 5 == 0) {
        const auto callpath = static_cast<uint32_t>(random() % (tree.size() + 1));
        trace.folded_spans.push_back(
            FoldedSpan{i, callpath, static_cast<int64_t>(random() % 70)});
      }
    }
    // Wait states at some Enters (waiting may be zero or negative).
    for (const uint32_t enter : enters) {
      if (random() % 3 != 0) continue;
      waits.emplace_back(enter, static_cast<uint32_t>(waiting.size()));
      waiting.push_back(static_cast<int64_t>(random() % 40) - 5);
    }
  }

  /// An interval as the analyses ask for one, or an odd one.
  Interval pick(std::mt19937& random) const {
    const auto any = [&](const std::vector<uint32_t>& from) {
      return from[random() % from.size()];
    };
    Interval interval;
    interval.to = any(enters);
    switch (random() % 8) {
      case 0: interval.from = kNone; break;
      case 1: interval.from = any(enters); break;           // its own time counts
      case 2: interval.to = random() % 2 == 0 ? kNone : trace.events.size() + 3; break;
      default: interval.from = any(leaves);                 // possibly after `to`
    }
    return interval;
  }
};

void expect_same(const IntervalProfile& expected, const IntervalProfile& got, const char* what,
                 int trial, std::size_t k) {
  ASSERT_EQ(got.time, expected.time) << what << " trial " << trial << " interval " << k;
  ASSERT_EQ(got.waiting, expected.waiting) << what << " trial " << trial << " interval " << k;
  ASSERT_EQ(got.waits, expected.waits) << what << " trial " << trial << " interval " << k;
}

TEST(IntervalProfile, EveryIntervalAgreesWithTheReference) {
  std::mt19937 random(11);
  std::size_t compared = 0, non_empty = 0;
  for (int trial = 0; trial < 200; ++trial) {
    RandomTrace t(random);
    if (t.enters.empty() || t.leaves.empty()) continue;
    IntervalProfiler profiler(t.trace, t.tree, t.waits,
                              WaitingTicks{t.waiting.empty() ? nullptr : t.waiting.data()});
    std::vector<Interval> intervals(60);
    for (Interval& interval : intervals) interval = t.pick(random);
    // Mostly increasing, as a rank's intervals with one partner come, with
    // jumps back (the next partner's run): the searches start from the last.
    std::sort(intervals.begin(), intervals.begin() + 30,
              [](const Interval& a, const Interval& b) { return a.to < b.to; });
    const bool list_waits = trial % 2 == 0;
    IntervalProfile one;  // reused, as the callers do
    for (std::size_t k = 0; k < intervals.size(); ++k) {
      const IntervalProfile expected = reference_profile(
          t.trace, t.tree, t.waits, t.waiting, intervals[k].from, intervals[k].to, list_waits);
      profiler.profile(intervals[k].from, intervals[k].to, one, list_waits);
      expect_same(expected, one, "profile", trial, k);
      Collected sink;
      sink.profile.waiting =
          profiler.profile_into(intervals[k].from, intervals[k].to, list_waits, sink);
      expect_same(expected, sink.profile, "profile_into", trial, k);
      ++compared;
      if (!expected.time.empty()) ++non_empty;
    }
  }
  EXPECT_GT(compared, 5000u);
  EXPECT_GT(non_empty, compared / 2);  // the comparisons are not of empty profiles
}

}  // namespace
}  // namespace orrery::testing

// The critical path's split of a stretch over call paths (critical_path_split.h)
// against its definition: IntervalProfiler::profile of the stretch, less the
// waiting at the call the stretch starts at, the call paths left with time.
// Hand-built in-memory traces: nested regions, Leaves whose region had
// folded callees, folded spans between kept events, time running backward.
// Part of analyzer_critical_path_test (a local test: every rank runs it).

#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "critical_path_split.h"
#include "orrery/analyzer/synchronization_interval.h"

namespace orrery::testing {
namespace {

using analyzer::CallTree;
using analyzer::Event;
using analyzer::EventKind;
using analyzer::LocalTrace;
using analyzer::kNone;
using Split = std::vector<std::pair<uint32_t, int64_t>>;

/// Appends Enter/Leave pairs with their links, as the reader keeps them.
class TraceBuilder {
 public:
  explicit TraceBuilder(LocalTrace& trace) : trace_(trace) {}
  void enter(int64_t time, uint32_t callpath) {
    open_.push_back(trace_.events.push_back(Event::make(time, EventKind::kEnter, callpath, 0)));
  }
  void leave(int64_t time) {
    const uint32_t enter = open_.back();
    open_.pop_back();
    trace_.events[enter].link =
        trace_.events.push_back(Event::make(time, EventKind::kLeave, Event::kRefMask, enter));
  }
  /// A folded callee's time in the gap before the next kept event.
  void folded(uint32_t callpath, int64_t exclusive) {
    trace_.folded_spans.push_back({static_cast<uint32_t>(trace_.events.size()), callpath, exclusive});
  }

 private:
  LocalTrace& trace_;
  std::vector<uint32_t> open_;
};

/// The definition: the general profile, less `waiting` at from's call path.
Split expected(analyzer::IntervalProfiler& profiler, const LocalTrace& trace, uint32_t from,
               uint32_t to, int64_t waiting) {
  analyzer::IntervalProfile profile;
  profiler.profile(from, to, profile);
  const uint32_t waiter = from == kNone ? kNone : trace.events[from].ref();
  Split result;
  for (auto [callpath, ticks] : profile.time) {
    if (waiting > 0 && callpath == waiter) ticks -= waiting;
    if (ticks > 0) result.emplace_back(callpath, ticks);
  }
  return result;
}

Split split(analyzer::critical_path::StretchSplitter& splitter, uint32_t from, uint32_t to,
            int64_t waiting) {
  Split result;
  splitter.split(from, to, waiting, [&](uint32_t callpath, int64_t ticks) { result.emplace_back(callpath, ticks); });
  return result;
}

/// Every stretch from an Enter (or the trace's start) to an Enter, with
/// no, some and more than all waiting: the same call paths, in the same
/// order, with the same ticks as the definition.
void expect_every_stretch_as_defined(const LocalTrace& trace, const CallTree& tree) {
  analyzer::IntervalProfiler profiler(trace, tree, {}, {});
  analyzer::critical_path::StretchSplitter splitter(trace, tree);
  std::vector<uint32_t> enters;
  for (uint32_t i = 0; i < trace.events.size(); ++i) {
    if (trace.events[i].kind() == EventKind::kEnter) enters.push_back(i);
  }
  std::vector<uint32_t> starts = enters;
  starts.push_back(kNone);
  for (const uint32_t to : enters) {
    for (const uint32_t from : starts) {
      for (const int64_t waiting : {int64_t{0}, int64_t{3}, int64_t{1000000}}) {
        EXPECT_EQ(split(splitter, from, to, waiting), expected(profiler, trace, from, to, waiting))
            << "stretch " << from << " -> " << to << ", waiting " << waiting;
      }
    }
  }
}

TEST(CriticalPathSplit, NestedRegionsAndFoldedSpansSplitAsTheProfileDoes) {
  // main { a { b { } folded c } recv { } a { b } send { } }, folded callees
  // of `a` and of main between kept events, one at the same event twice.
  CallTree tree;
  const uint32_t main = tree.child(kNone, 0);
  const uint32_t a = tree.child(main, 1);
  const uint32_t b = tree.child(a, 2);
  const uint32_t c = tree.child(a, 3);
  const uint32_t recv = tree.child(main, 4);
  const uint32_t send = tree.child(main, 5);
  const uint32_t helper = tree.child(main, 6);
  LocalTrace trace;
  TraceBuilder t(trace);
  t.enter(0, main);
  t.enter(10, a);
  t.enter(15, b);
  t.leave(22);
  t.folded(c, 4);
  t.leave(40);
  t.folded(helper, 2);
  t.folded(helper, 1);
  t.enter(50, recv);
  t.leave(90);
  t.enter(95, a);
  t.enter(96, b);
  t.leave(99);
  t.leave(120);
  t.enter(121, send);
  t.leave(121);
  t.folded(c, 30);  // more than the gap: time that ran backward stays negative
  t.enter(125, recv);
  t.leave(150);
  t.leave(160);
  expect_every_stretch_as_defined(trace, tree);
}

TEST(CriticalPathSplit, ManyCallPathsFallBackToTheProfileWithTheSameResult) {
  // A stretch over more call paths than the short split holds must go to
  // IntervalProfiler (and agree); a stretch over a few must not.
  CallTree tree;
  const uint32_t main = tree.child(kNone, 0);
  const uint32_t wait = tree.child(main, 1);
  std::vector<uint32_t> leaves;
  for (uint32_t region = 2; region < 2 + 2 * analyzer::critical_path::StretchSplitter::kFew; ++region) {
    leaves.push_back(tree.child(main, region));
  }
  LocalTrace trace;
  TraceBuilder t(trace);
  t.enter(0, main);
  t.enter(1, wait);
  const uint32_t wide_from = 1;
  t.leave(5);
  int64_t time = 5;
  for (const uint32_t callpath : leaves) {
    t.enter(time += 2, callpath);
    t.leave(time += 3);
  }
  const auto narrow_from = static_cast<uint32_t>(trace.events.size());
  t.enter(time += 1, wait);
  t.leave(time += 7);
  const auto to = static_cast<uint32_t>(trace.events.size());
  t.enter(time += 1, leaves.front());
  t.leave(time += 1);
  t.leave(time += 1);

  analyzer::IntervalProfiler profiler(trace, tree, {}, {});
  analyzer::critical_path::StretchSplitter splitter(trace, tree);
  const Split narrow = split(splitter, narrow_from, to, 4);
  EXPECT_EQ(splitter.general_splits(), 0u);
  EXPECT_EQ(narrow, expected(profiler, trace, narrow_from, to, 4));
  ASSERT_EQ(narrow.size(), 2u);  // the waiting call less its waiting, main between
  const Split wide = split(splitter, wide_from, to, 2);
  EXPECT_EQ(splitter.general_splits(), 1u);
  EXPECT_EQ(wide, expected(profiler, trace, wide_from, to, 2));
  EXPECT_GT(wide.size(), analyzer::critical_path::StretchSplitter::kFew);
  expect_every_stretch_as_defined(trace, tree);
}

}  // namespace
}  // namespace orrery::testing

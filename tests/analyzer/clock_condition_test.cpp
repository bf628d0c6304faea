// The controlled logical clock's two passes (clock_condition.h) on one
// rank's event times, without MPI: what moves, by how much, and what does
// not move at all.

#include "orrery/analyzer/clock_condition.h"

#include <gtest/gtest.h>

#include <climits>

namespace orrery::analyzer {
namespace {

ClockConditionParameters parameters(int64_t latency = 10) {
  ClockConditionParameters p;
  p.min_latency = latency;
  p.slope = 0.01;
  return p;
}

TEST(ClockCondition, NothingMovesWithoutViolations) {
  const std::vector<int64_t> times = {0, 100, 200, 300};
  const std::vector<ReceiveAt> receives = {{2, 0}};
  std::vector<int64_t> corrected;
  ClockCorrection stats;
  clock_forward(times, receives, {150}, parameters(), corrected, stats);  // sent at 150, received at 200
  EXPECT_EQ(corrected, times);
  EXPECT_EQ(stats.violations, 0u);
  EXPECT_EQ(stats.moved, 0);
  clock_backward(times, receives, std::vector<int64_t>(4, INT64_MAX), parameters(), corrected, stats);
  EXPECT_EQ(corrected, times);
  EXPECT_EQ(stats.max_shift, 0);
}

TEST(ClockCondition, ReceiveMovesJustAfterItsSendAndTheJumpFadesForward) {
  // Receive completes at 10,000 but its send began at 12,000.
  const std::vector<int64_t> times = {0, 5000, 10000, 10100, 60000, 400000, 900000};
  const std::vector<ReceiveAt> receives = {{2, 0}};
  std::vector<int64_t> corrected;
  ClockCorrection stats;
  clock_forward(times, receives, {12000}, parameters(), corrected, stats);
  EXPECT_EQ(stats.violations, 1u);
  EXPECT_EQ(stats.corrected, 1u);
  EXPECT_EQ(corrected[2], 12010);  // the send + minimal latency
  EXPECT_EQ(stats.moved, 2010);
  EXPECT_EQ(stats.max_jump, 2010);
  // The next event keeps 99 % of its interval: 12010 + 99.
  EXPECT_EQ(corrected[3], 12109);
  // 49,900 ticks later 1 % of them (499) is taken off the 2,009 still ahead.
  EXPECT_EQ(corrected[4], 60000 + 2009 - 499);
  // After 200,000 more ticks the correction has faded out completely:
  // events far after it keep their times.
  EXPECT_EQ(corrected[5], 400000);
  EXPECT_EQ(corrected[6], 900000);
  EXPECT_EQ(corrected[0], 0);
}

TEST(ClockCondition, JumpIsSpreadBackwardOverThePrecedingInterval) {
  const std::vector<int64_t> times = {0, 5000, 10000, 10100, 900000};
  const std::vector<ReceiveAt> receives = {{2, 0}};
  std::vector<int64_t> corrected;
  ClockCorrection stats;
  const ClockConditionParameters p = parameters();
  clock_forward(times, receives, {12000}, p, corrected, stats);
  clock_backward(times, receives, std::vector<int64_t>(times.size(), INT64_MAX), p, corrected, stats);
  // Ramp: 2010 at the receive, 1 % less per tick before it (on corrected times).
  EXPECT_EQ(corrected[1], 5000 + static_cast<int64_t>(2010 - 0.01 * (12010 - 5000)));
  EXPECT_EQ(corrected[0], 0 + static_cast<int64_t>(2010 - 0.01 * 12010));
  EXPECT_EQ(corrected[2], 12010);
  EXPECT_EQ(corrected[4], 900000);
  EXPECT_EQ(stats.max_shift, 2010);
  for (std::size_t i = 1; i < corrected.size(); ++i) EXPECT_LE(corrected[i - 1], corrected[i]);
}

TEST(ClockCondition, BackwardSpreadStopsAtASendItsReceiveDoesNotAllowToMove) {
  // Event 1 is a send's enter whose receive (elsewhere) leaves it 300 ticks.
  const std::vector<int64_t> times = {0, 5000, 8000, 10000};
  const std::vector<ReceiveAt> receives = {{3, 0}};
  std::vector<int64_t> corrected;
  ClockCorrection stats;
  const ClockConditionParameters p = parameters();
  clock_forward(times, receives, {12000}, p, corrected, stats);
  std::vector<int64_t> limits(times.size(), INT64_MAX);
  limits[1] = 300;
  clock_backward(times, receives, limits, p, corrected, stats);
  EXPECT_EQ(corrected[2], 8000 + static_cast<int64_t>(2010 - 0.01 * (12010 - 8000)));
  EXPECT_EQ(corrected[1], 5300);  // capped
  EXPECT_EQ(corrected[0], 300);   // everything before the send at most as far
}

TEST(ClockCondition, BackwardSpreadStopsAtThePreviousCorrection) {
  const std::vector<int64_t> times = {0, 1000, 2000, 3000};
  const std::vector<ReceiveAt> receives = {{1, 0}, {3, 1}};
  std::vector<int64_t> corrected;
  ClockCorrection stats;
  const ClockConditionParameters p = parameters();
  clock_forward(times, receives, {1500, 3600}, p, corrected, stats);
  EXPECT_EQ(stats.corrected, 2u);
  EXPECT_EQ(corrected[1], 1510);
  const int64_t forward_second = corrected[2];
  clock_backward(times, receives, std::vector<int64_t>(times.size(), INT64_MAX), p, corrected, stats);
  // Event 2 lies in the second receive's window; event 1 (the first
  // correction) and event 0 before it belong to the first window only.
  EXPECT_GT(corrected[2], forward_second);
  EXPECT_EQ(corrected[1], 1510);
  EXPECT_EQ(corrected[0], static_cast<int64_t>(510 - 0.01 * 1510));
}

TEST(ClockCondition, CountingOnlyLeavesTimesAlone) {
  const std::vector<int64_t> times = {0, 5000, 10000};
  ClockConditionParameters p = parameters();
  p.correct = false;
  std::vector<int64_t> corrected;
  ClockCorrection stats;
  clock_forward(times, {{2, 0}}, {12000}, p, corrected, stats);
  EXPECT_EQ(corrected, times);
  EXPECT_EQ(stats.violations, 1u);
  EXPECT_EQ(stats.corrected, 0u);
}

}  // namespace
}  // namespace orrery::analyzer

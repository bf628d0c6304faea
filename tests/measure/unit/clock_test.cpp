#include "clock.h"

#include <gtest/gtest.h>

namespace orrery::measure {
namespace {

TEST(Clock, ConverterMapsTicksLinearlyBetweenTheTwoPairs) {
  if (!g_tsc_clock) GTEST_SKIP() << "no invariant TSC: event times are already nanoseconds";
  const TimeConverter convert(ClockPair{1000, 5000000}, ClockPair{3000, 6000000});
  EXPECT_EQ(convert.to_ns(1000), 5000000u);
  EXPECT_EQ(convert.to_ns(2000), 5500000u);
  EXPECT_EQ(convert.to_ns(3000), 6000000u);
  EXPECT_EQ(convert.to_ns(500), 4750000u);  // before the first pair: extrapolated
}

TEST(Clock, EventClockAgreesWithMonotonicTime) {
  const ClockPair first = ClockPair::sample();
  const uint64_t start = monotonic_ns();
  while (monotonic_ns() - start < 20000000) {
  }
  const uint64_t ticks = now();
  const uint64_t expected = monotonic_ns();
  const TimeConverter convert(first, ClockPair::sample());
  const double error = static_cast<double>(convert.to_ns(ticks)) - static_cast<double>(expected);
  EXPECT_LT(error < 0 ? -error : error, 1e6) << "converted event time is more than 1 ms off";
}

TEST(Clock, PrecisePairLiesBetweenTheReadingsAroundIt) {
  const uint64_t before = now();
  const PreciseClockPair p = PreciseClockPair::sample();
  const uint64_t after = now();
  const uint64_t ns_after = monotonic_ns();
  EXPECT_GE(p.pair.ticks, before);
  EXPECT_LE(p.pair.ticks, after);
  EXPECT_LE(p.pair.ns, ns_after);
  // The narrowest of 32 brackets: at most the whole sampling took.
  EXPECT_LE(2 * p.uncertainty_ticks, after - before);
}

TEST(Clock, NodeConversionFromPrecisePairsAgreesWithMonotonicTime) {
  const PreciseClockPair first = PreciseClockPair::sample();
  const uint64_t start = monotonic_ns();
  while (monotonic_ns() - start < 20000000) {
  }
  const uint64_t ticks = now();
  const uint64_t expected = monotonic_ns();
  const TimeConverter convert(first.pair, PreciseClockPair::sample().pair);
  const double error = static_cast<double>(convert.to_ns(ticks)) - static_cast<double>(expected);
  EXPECT_LT(error < 0 ? -error : error, 1e6) << "converted event time is more than 1 ms off";
}

}  // namespace
}  // namespace orrery::measure

// The delay analysis' DelayPool (analyzer/src/delay_model.h): a delay keeps
// its own wait states only when it passes waiting on (total > 0, own
// waiting in it, own waits with ticks), and the sum of their ticks, no
// longer stored, comes back from them.

#include <gtest/gtest.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "delay_rounds.h"

namespace orrery::testing {
namespace {

using analyzer::WaitKind;
using analyzer::delay::DelayPool;
using analyzer::delay::PassingShares;
using analyzer::delay::TicksByCallpath;
using OwnWaits = std::vector<std::pair<uint32_t, int64_t>>;

/// Adds a delay with `excess` ticks beyond the waiter's at call path 0,
/// `mine` and `theirs` waiting, and `own` waits; returns its index.
uint32_t add(DelayPool& pool, int64_t excess, int64_t mine, int64_t theirs, const OwnWaits& own) {
  TicksByCallpath waiter(1);
  pool.start_delay(WaitKind::kLateSender, 100);
  pool.add_time(0, excess, waiter);
  return pool.finish_delay(mine, theirs, own);
}

TEST(AnalyzerDelayPool, OnlyPassingDelaysKeepTheirOwnWaits) {
  DelayPool pool;
  const uint32_t passing = add(pool, 5, 30, 10, {{3, 7}, {4, 13}});
  const uint32_t no_own_waiting = add(pool, 5, 10, 30, {{5, 9}});
  const uint32_t no_ticks = add(pool, 5, 30, 10, {{6, 0}});
  const uint32_t no_waits = add(pool, 5, 30, 10, {});
  const uint32_t nothing = add(pool, 0, 0, 0, {{7, 4}});
  const uint32_t last = add(pool, 1, 2, 1, {{8, 2}});

  EXPECT_TRUE(PassingShares::passes_on(pool.delays[passing]));
  EXPECT_EQ(pool.waits_end(passing) - pool.waits_begin(passing), 2u);
  EXPECT_EQ(pool.waits_total(passing), 20);
  EXPECT_EQ(pool.delays[passing].total, 25.0);
  EXPECT_EQ(pool.delays[passing].excess_waiting, 20.0);
  EXPECT_EQ(pool.delays[passing].waiting(), 100.0);
  EXPECT_EQ(pool.delays[passing].kind(), WaitKind::kLateSender);
  for (const uint32_t d : {no_own_waiting, no_ticks, no_waits, nothing}) {
    EXPECT_FALSE(PassingShares::passes_on(pool.delays[d])) << d;
    EXPECT_EQ(pool.waits_end(d), pool.waits_begin(d)) << d;
    EXPECT_EQ(pool.waits_total(d), 0) << d;
  }
  EXPECT_TRUE(PassingShares::passes_on(pool.delays[last]));
  EXPECT_EQ(pool.waits_begin(last), 2u);  // right after the first delay's two
  EXPECT_EQ(pool.waits_total(last), 2);
  EXPECT_EQ(pool.waits.size(), 3u);
  EXPECT_EQ(pool.excess_end(nothing) - pool.excess_begin(nothing), 0u);
  EXPECT_EQ(pool.excess_end(last) - pool.excess_begin(last), 1u);
}

TEST(AnalyzerDelayPool, ShareSplitsByTheOwnWaitsTicks) {
  DelayPool pool;
  const uint32_t d = add(pool, 5, 30, 10, {{3, 1}, {4, 3}});
  const uint32_t none = add(pool, 5, 10, 30, {{5, 9}});
  std::vector<std::pair<uint32_t, double>> got;
  const auto keep = [&](uint32_t wait, double value) { got.emplace_back(wait, value); };
  PassingShares::share(pool, d, 8.0, keep);
  PassingShares::share(pool, none, 8.0, keep);  // does not pass: nothing
  PassingShares::share(pool, d, 0.0, keep);     // no amount: nothing
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], (std::pair<uint32_t, double>{3, 8.0 * 1.0 / 4.0}));
  EXPECT_EQ(got[1], (std::pair<uint32_t, double>{4, 8.0 * 3.0 / 4.0}));
}

}  // namespace
}  // namespace orrery::testing

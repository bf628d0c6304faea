// The ideal-network replay's walk without waits (what_if_rounds.cpp) against
// the event-by-event replay of the same model: `--what-if ideal` with no
// eager limit re-times the trace event by event (it writes the times), while
// the ideal-network replay of the same analysis first walks as if nothing
// waited. Both must give the same times bit for bit, on a trace without
// waits on the ideal network (the walk is the replay), one where a slow rank
// makes the others wait and one whose waits alternate between ranks (both
// found out after the walk: the event-by-event replay runs), each with point-to-point messages (blocking and non-blocking) and
// collectives of every kind the rounds exchange.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "orrery/analyzer/what_if.h"
#include "support/scenario.h"

namespace orrery::testing {
namespace {

constexpr uint64_t kBase = 1000000000;

/// A ring exchange per iteration (even ranks send first, odd ranks receive
/// first; every fourth iteration non-blocking), and every fifth iteration
/// a collective, in turn an Allreduce, a Bcast from rank 1, a Reduce to
/// rank 0, a Scan, an Exscan and a Barrier. `compute(rank, iteration)` is the
/// computation before each exchange; receives end when the message was
/// sent (as on synchronised clocks), collectives when the last member came.
void ring(TestArchive& a, const Regions& r, uint64_t iterations,
          uint64_t (*compute)(uint32_t, uint64_t)) {
  const auto p = static_cast<uint32_t>(world_size());
  std::vector<uint64_t> t(p, kBase), sent_at(p, 0);
  for (uint32_t k = 0; k < p; ++k) a.rank(k).enter(t[k], r.main);
  const auto send = [&](uint32_t k, uint64_t i) {
    auto& w = a.rank(k);
    const uint32_t next = (k + 1) % p;
    sent_at[k] = t[k] += 5;
    if (i % 4 == 3) {
      w.enter(t[k], r.isend);
      w.isend(t[k] + 1, next, TestArchive::kWorld, 0, 64, 100 + i);
      w.leave(t[k] += 2, r.isend);
      w.enter(t[k] += 3, r.wait);
      w.isend_complete(t[k] += 1, 100 + i);
      w.leave(t[k] += 1, r.wait);
      return;
    }
    w.enter(t[k], r.send);
    w.send(t[k] + 1, next, TestArchive::kWorld, 0, 64);
    w.leave(t[k] += 3, r.send);
  };
  const auto receive = [&](uint32_t k, uint64_t i) {
    auto& w = a.rank(k);
    const uint32_t previous = (k + p - 1) % p;
    w.enter(t[k] += 5, r.recv);
    t[k] = std::max(t[k], sent_at[previous]) + 7;
    w.recv(t[k], previous, TestArchive::kWorld, 0, 64);
    w.leave(t[k] += 1, r.recv);
    (void)i;
  };
  for (uint64_t i = 0; i < iterations; ++i) {
    for (uint32_t k = 0; k < p; ++k) {
      if (const uint64_t c = compute(k, i); c > 0) region(a.rank(k), r.work, t[k], t[k] += c);
    }
    for (uint32_t k = 0; k < p; k += 2) send(k, i);
    for (uint32_t k = 1; k < p; k += 2) receive(k, i);
    for (uint32_t k = 1; k < p; k += 2) send(k, i);
    for (uint32_t k = 0; k < p; k += 2) receive(k, i);
    if (i % 5 != 4) continue;
    struct Kind {
      uint32_t region;
      Collective op;
      uint32_t root;
    };
    const Kind kinds[] = {{r.allreduce, Collective::kAllreduce, TestArchive::kNoRoot},
                          {r.bcast, Collective::kBcast, 1},
                          {r.reduce, Collective::kReduce, 0},
                          {r.scan, Collective::kScan, TestArchive::kNoRoot},
                          {r.scan, Collective::kExscan, TestArchive::kNoRoot},
                          {r.barrier, Collective::kBarrier, TestArchive::kNoRoot}};
    const Kind& kind = kinds[(i / 5) % 6];
    uint64_t last = 0;
    for (uint32_t k = 0; k < p; ++k) last = std::max(last, t[k] += 4);
    for (uint32_t k = 0; k < p; ++k) {
      auto& w = a.rank(k);
      w.enter(t[k], kind.region);
      w.collective_begin(t[k] + 1);
      t[k] = last + 9 + k;
      w.collective_end(t[k], kind.op, TestArchive::kWorld, kind.root, 8, 8);
      w.leave(t[k] += 1, kind.region);
    }
  }
  for (uint32_t k = 0; k < p; ++k) a.rank(k).leave(t[k] += 10, r.main);
}

/// The same trace's ideal-network replay (by rounds if they settle) and its
/// `--what-if ideal` without an eager limit (event by event).
analyzer::AnalysisResult both_replays(const std::string& name,
                                      uint64_t (*compute)(uint32_t, uint64_t)) {
  return analyze_scenario_with(
      name, [&](TestArchive& a, const Regions& r) { ring(a, r, 200, compute); },
      [](analyzer::AnalysisOptions& options) {
        options.what_if = analyzer::parse_machine_model("ideal");
        options.what_if->eager_limit = UINT64_MAX;
      });
}

void expect_same_times(const analyzer::AnalysisResult& result) {
  ASSERT_TRUE(result.ideal.has_value());
  ASSERT_TRUE(result.predicted.has_value());
  // Bit for bit: the same integer times make the same seconds.
  EXPECT_EQ(result.ideal->predicted_runtime, result.predicted->predicted_runtime);
  EXPECT_EQ(result.ideal->predicted_end, result.predicted->predicted_end);
  EXPECT_EQ(result.ideal->measured_runtime, result.predicted->measured_runtime);
  // The ideal network removes the message time: a shorter run.
  EXPECT_LT(result.ideal->predicted_runtime, result.ideal->measured_runtime);
}

TEST(WhatIfRounds, NoWaitsOneWalk) {
  // No computation: every rank's clock runs alike, nobody waits on the ideal
  // network, and the walk without waits has the times.
  const auto result = both_replays("no_waits", [](uint32_t, uint64_t) -> uint64_t { return 0; });
  expect_same_times(result);
  EXPECT_TRUE(result.ideal->without_waits);
  EXPECT_FALSE(result.ideal->without_waits_tried);
  // The applied replay goes event by event, without trying.
  EXPECT_FALSE(result.predicted->without_waits);
  EXPECT_FALSE(result.predicted->without_waits_tried);
}

TEST(WhatIfRounds, OneSlowRankGoesEventByEvent) {
  // Rank 0 computes long every tenth iteration: the others wait for it.
  const auto result = both_replays("slow_rank", [](uint32_t k, uint64_t i) -> uint64_t {
    return k == 0 && i % 10 == 0 ? 300 : 0;
  });
  expect_same_times(result);
  EXPECT_FALSE(result.ideal->without_waits);
  EXPECT_TRUE(result.ideal->without_waits_tried);
}

TEST(WhatIfRounds, AlternatingWaitsGoEventByEvent) {
  // Computation whose longest rank changes every iteration: the waits
  // alternate between ranks.
  const auto result = both_replays("alternate", [](uint32_t k, uint64_t i) -> uint64_t {
    return 50 + (k * 7 + i * 3) % 23;
  });
  expect_same_times(result);
  EXPECT_FALSE(result.ideal->without_waits);
  EXPECT_TRUE(result.ideal->without_waits_tried);
}

}  // namespace
}  // namespace orrery::testing

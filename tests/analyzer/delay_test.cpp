// Delay costs (root causes) and wait-state classes on hand-built traces
// with exact expected values. Times in microseconds after a base; calls that
// only synchronize take no time, so every waiting time is a whole number.

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "orrery/analyzer/lower_bound_near.h"
#include "support/scenario.h"

namespace orrery::testing {
namespace {

constexpr uint64_t U = 1000;        // one microsecond in ns
constexpr uint64_t B = 1000000000;  // base time
constexpr uint64_t END = B + 1000 * U;
constexpr double kTol = 1e-12;
double us(double n) { return n * 1e-6; }
uint64_t at(uint64_t n) { return B + n * U; }

void with_main(TestArchive& a, const Regions& r,
               const std::function<void(TestArchive&, const Regions&)>& body) {
  for (int k = 0; k < world_size(); ++k) a.rank(static_cast<uint32_t>(k)).enter(B, r.main);
  body(a, r);
  for (int k = 0; k < world_size(); ++k) a.rank(static_cast<uint32_t>(k)).leave(END, r.main);
}

/// A region instance [t0, t1] with nothing inside.
void region_instance(TestArchive::Rank& rank, uint32_t id, uint64_t t0, uint64_t t1) {
  region(rank, id, t0, t1);
}

void recv(TestArchive::Rank& rank, const Regions& r, uint64_t t0, uint64_t t1, uint32_t peer) {
  rank.enter(t0, r.recv);
  rank.recv(t1, peer, TestArchive::kWorld, 0, 8);
  rank.leave(t1, r.recv);
}
void send(TestArchive::Rank& rank, uint32_t region, uint64_t t, uint32_t peer) {
  rank.enter(t, region);
  rank.send(t, peer, TestArchive::kWorld, 0, 8);
  rank.leave(t, region);
}

TEST(AnalyzerDelay, ChainOfLateSenders) {
  // 3 -> 2 -> 1 -> 0: every rank works 10 us, rank 3 works 40 us; each
  // receives from its right neighbour, then sends to its left one.
  if (world_size() < 4) GTEST_SKIP() << "needs 4 ranks";
  auto result = analyze_scenario("delay_chain", [](TestArchive& a, const Regions& r) {
    with_main(a, r, [](TestArchive& a2, const Regions& r2) {
      region_instance(a2.rank(3), r2.work, at(0), at(40));
      send(a2.rank(3), r2.send, at(40), 2);
      for (uint32_t k = 0; k < 3; ++k) {
        region_instance(a2.rank(k), r2.work, at(0), at(10));
        recv(a2.rank(k), r2, at(10), at(40), k + 1);
        if (k > 0) send(a2.rank(k), r2.send, at(40), k - 1);
      }
    });
  });
  if (world_rank() != 0) return;
  const auto& cube = result.cube;
  EXPECT_NEAR(value(cube, "delay_late_sender_short_term", "main/work", 3), us(30), kTol);
  EXPECT_NEAR(value(cube, "delay_late_sender_long_term", "main/work", 3), us(60), kTol);
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(value(cube, "late_sender", "main/MPI_Recv", k), us(30), kTol) << k;
    EXPECT_EQ(rank_total(cube, "delay_late_sender_short_term", k), 0.0) << k;
    EXPECT_EQ(rank_total(cube, "delay_late_sender_long_term", k), 0.0) << k;
  }
  EXPECT_EQ(rank_total(cube, "delay", 3), 0.0);  // aggregates hold 0
  EXPECT_EQ(rank_total(cube, "delay_late_sender", 3), 0.0);
  EXPECT_NEAR(value(cube, "wait_direct", "main/MPI_Recv", 2), us(30), kTol);
  EXPECT_EQ(value(cube, "wait_indirect", "main/MPI_Recv", 2), 0.0);
  for (int k : {0, 1}) {
    EXPECT_NEAR(value(cube, "wait_indirect", "main/MPI_Recv", k), us(30), kTol) << k;
    EXPECT_EQ(value(cube, "wait_direct", "main/MPI_Recv", k), 0.0) << k;
  }
  for (int k : {1, 2}) {
    EXPECT_NEAR(value(cube, "wait_propagating", "main/MPI_Recv", k), us(30), kTol) << k;
    EXPECT_EQ(value(cube, "wait_terminal", "main/MPI_Recv", k), 0.0) << k;
  }
  EXPECT_NEAR(value(cube, "wait_terminal", "main/MPI_Recv", 0), us(30), kTol);
  EXPECT_EQ(value(cube, "wait_propagating", "main/MPI_Recv", 0), 0.0);
}

TEST(AnalyzerDelay, TwoIndependentCausesSplit) {
  // Rank 0 waits 30 us for rank 1, which spent 10 us more in work and 20 us
  // in `other`; then 30 us for rank 2, which spent its time in `other`.
  if (world_size() < 3) GTEST_SKIP() << "needs 3 ranks";
  auto result = analyze_scenario("delay_two_causes", [](TestArchive& a, const Regions& r) {
    const uint32_t other = a.region("other");
    with_main(a, r, [other](TestArchive& a2, const Regions& r2) {
      region_instance(a2.rank(1), r2.work, at(0), at(30));
      region_instance(a2.rank(1), other, at(30), at(50));
      send(a2.rank(1), r2.send, at(50), 0);
      region_instance(a2.rank(2), other, at(0), at(80));
      send(a2.rank(2), r2.send, at(80), 0);
      region_instance(a2.rank(0), r2.work, at(0), at(20));
      recv(a2.rank(0), r2, at(20), at(50), 1);
      recv(a2.rank(0), r2, at(50), at(80), 2);
    });
  });
  if (world_rank() != 0) return;
  const auto& cube = result.cube;
  EXPECT_NEAR(value(cube, "late_sender", "main/MPI_Recv", 0), us(60), kTol);
  EXPECT_NEAR(value(cube, "delay_late_sender_short_term", "main/work", 1), us(10), kTol);
  EXPECT_NEAR(value(cube, "delay_late_sender_short_term", "main/other", 1), us(20), kTol);
  EXPECT_NEAR(value(cube, "delay_late_sender_short_term", "main/other", 2), us(30), kTol);
  EXPECT_EQ(value(cube, "delay_late_sender_short_term", "main/work", 2), 0.0);
  EXPECT_EQ(rank_total(cube, "delay_late_sender_long_term", 1), 0.0);
  EXPECT_EQ(rank_total(cube, "delay_late_sender_long_term", 2), 0.0);
  EXPECT_NEAR(value(cube, "wait_direct", "main/MPI_Recv", 0), us(60), kTol);
  EXPECT_NEAR(value(cube, "wait_terminal", "main/MPI_Recv", 0), us(60), kTol);
}

TEST(AnalyzerDelay, LateReceiverCostsAtTheReceiversWork) {
  // Rank 0's synchronous send waits 40 us for rank 1's work.
  auto result = analyze_scenario("delay_late_receiver", [](TestArchive& a, const Regions& r) {
    with_main(a, r, [](TestArchive& a2, const Regions& r2) {
      auto& r0 = a2.rank(0);
      r0.enter(at(0), r2.ssend);
      r0.send(at(0), 1, TestArchive::kWorld, 0, 8);
      r0.leave(at(41), r2.ssend);
      region_instance(a2.rank(1), r2.work, at(0), at(40));
      recv(a2.rank(1), r2, at(40), at(41), 0);
    });
  });
  if (world_rank() != 0) return;
  const auto& cube = result.cube;
  EXPECT_NEAR(value(cube, "late_receiver", "main/MPI_Ssend", 0), us(40), kTol);
  EXPECT_NEAR(value(cube, "delay_late_receiver_short_term", "main/work", 1), us(40), kTol);
  EXPECT_NEAR(value(cube, "wait_direct", "main/MPI_Ssend", 0), us(40), kTol);
  EXPECT_EQ(rank_total(cube, "delay_late_sender_short_term", 1), 0.0);
}

TEST(AnalyzerDelay, NestedFoldedComputeKeepsItsCallPaths) {
  // Rank 1 computes solve [0, 40] > kernel [5, 35] > flux [10, 30] (nothing
  // kept inside: all three are folded while reading) and sends at 40; rank
  // 0 works 10 us and waits 30 us. Rank 1's excess over rank 0 in the
  // interval is solve 10, kernel 10, flux 20 exclusive: the 30 us split
  // 7.5 / 7.5 / 15, none of it on main (the folded callees' time belongs to
  // the gap before the send, whatever their nesting).
  auto result = analyze_scenario("delay_nested_folded", [](TestArchive& a, const Regions& r) {
    const uint32_t solve = a.region("solve");
    const uint32_t kernel = a.region("kernel");
    const uint32_t flux = a.region("flux");
    with_main(a, r, [&](TestArchive& a2, const Regions& r2) {
      auto& r1 = a2.rank(1);
      r1.enter(at(0), solve);
      r1.enter(at(5), kernel);
      region_instance(r1, flux, at(10), at(30));
      r1.leave(at(35), kernel);
      r1.leave(at(40), solve);
      send(r1, r2.send, at(40), 0);
      region_instance(a2.rank(0), r2.work, at(0), at(10));
      recv(a2.rank(0), r2, at(10), at(40), 1);
    });
  });
  if (world_rank() != 0) return;
  const auto& cube = result.cube;
  EXPECT_NEAR(value(cube, "late_sender", "main/MPI_Recv", 0), us(30), kTol);
  EXPECT_NEAR(value(cube, "delay_late_sender_short_term", "main/solve", 1), us(7.5), kTol);
  EXPECT_NEAR(value(cube, "delay_late_sender_short_term", "main/solve/kernel", 1), us(7.5), kTol);
  EXPECT_NEAR(value(cube, "delay_late_sender_short_term", "main/solve/kernel/flux", 1), us(15),
              kTol);
  EXPECT_EQ(value(cube, "delay_late_sender_short_term", "main", 1), 0.0);
}

/// Rank k works [0, work(k)], then enters a blocking collective at work(k)
/// that everyone leaves at `exit`.
void collective_after_work(TestArchive& a, const Regions& r, uint32_t region, Collective op,
                           uint32_t root, const std::function<uint64_t(int)>& work,
                           uint64_t exit) {
  for (int k = 0; k < world_size(); ++k) {
    auto& rank = a.rank(static_cast<uint32_t>(k));
    rank.enter(B, r.main);
    region_instance(rank, r.work, at(0), at(work(k)));
    rank.enter(at(work(k)), region);
    rank.collective_begin(at(work(k)));
    rank.collective_end(at(exit), op, TestArchive::kWorld, root, 8, 8);
    rank.leave(at(exit), region);
    rank.leave(END, r.main);
  }
}

TEST(AnalyzerDelay, ImbalancedBarrier) {
  // Rank k works 10 (k + 1) us: the last rank delays everyone; each waiter's
  // delay is the last rank's work beyond its own.
  const int n = world_size();
  auto result = analyze_scenario("delay_barrier", [n](TestArchive& a, const Regions& r) {
    collective_after_work(a, r, r.barrier, Collective::kBarrier, TestArchive::kNoRoot,
                          [](int k) { return 10 * static_cast<uint64_t>(k + 1); },
                          10 * static_cast<uint64_t>(n));
  });
  if (world_rank() != 0) return;
  const auto& cube = result.cube;
  double waited = 0;
  for (int k = 0; k + 1 < n; ++k) waited += 10.0 * (n - k - 1);
  EXPECT_NEAR(value(cube, "delay_barrier_short_term", "main/work", n - 1), us(waited), kTol);
  EXPECT_EQ(rank_total(cube, "delay_barrier_long_term", n - 1), 0.0);
  for (int k = 0; k + 1 < n; ++k) EXPECT_EQ(rank_total(cube, "delay_barrier_short_term", k), 0.0);
  EXPECT_EQ(rank_total(cube, "delay_nxn_short_term", n - 1), 0.0);
}

TEST(AnalyzerDelay, LateBroadcastRoot) {
  // The root (rank 0) works 40 us, the others 10 us.
  const int n = world_size();
  auto result = analyze_scenario("delay_bcast", [](TestArchive& a, const Regions& r) {
    collective_after_work(a, r, r.bcast, Collective::kBcast, 0,
                          [](int k) { return k == 0 ? uint64_t{40} : uint64_t{10}; }, 41);
  });
  if (world_rank() != 0) return;
  const auto& cube = result.cube;
  EXPECT_NEAR(value(cube, "delay_late_broadcast_short_term", "main/work", 0), us(30.0 * (n - 1)),
              kTol);
  for (int k = 1; k < n; ++k) {
    EXPECT_EQ(rank_total(cube, "delay_late_broadcast_short_term", k), 0.0);
  }
}

TEST(AnalyzerDelay, EarlyReduceWaitsForTheLastContributor) {
  // The root (rank 0) works 10 us, rank k 10 (k + 1) us: the root waits for
  // the last rank, whose work beyond the root's is the delay.
  const int n = world_size();
  auto result = analyze_scenario("delay_reduce", [n](TestArchive& a, const Regions& r) {
    collective_after_work(a, r, r.reduce, Collective::kReduce, 0,
                          [](int k) { return 10 * static_cast<uint64_t>(k + 1); },
                          10 * static_cast<uint64_t>(n) + 1);
  });
  if (world_rank() != 0) return;
  EXPECT_NEAR(value(result.cube, "delay_early_reduce_short_term", "main/work", n - 1),
              us(10.0 * (n - 1)), kTol);
}

TEST(AnalyzerDelay, LongTermCostsThroughABarrier) {
  // Rank 1 waits 20 us for rank 3 (Late Sender), works 10 us in `other`, and
  // enters a barrier over ranks 0 and 1 at 40, where rank 0 waits 30 us: 10
  // of them are rank 1's `other`, 20 the waiting it passed on, which lands
  // on rank 3's work as long-term Late Sender costs.
  if (world_size() < 4) GTEST_SKIP() << "needs 4 ranks";
  auto result = analyze_scenario("delay_through_barrier", [](TestArchive& a, const Regions& r) {
    const uint32_t other = a.region("other");
    const uint32_t pair = a.comm("pair", {0, 1});
    with_main(a, r, [&](TestArchive& a2, const Regions& r2) {
      region_instance(a2.rank(3), r2.work, at(0), at(30));
      send(a2.rank(3), r2.send, at(30), 1);
      auto& r1 = a2.rank(1);
      region_instance(r1, r2.work, at(0), at(10));
      recv(r1, r2, at(10), at(30), 3);
      region_instance(r1, other, at(30), at(40));
      r1.enter(at(40), r2.barrier);
      r1.collective_begin(at(40));
      r1.collective_end(at(40), Collective::kBarrier, pair, TestArchive::kNoRoot, 0, 0);
      r1.leave(at(40), r2.barrier);
      auto& r0 = a2.rank(0);
      region_instance(r0, r2.work, at(0), at(10));
      r0.enter(at(10), r2.barrier);
      r0.collective_begin(at(10));
      r0.collective_end(at(40), Collective::kBarrier, pair, TestArchive::kNoRoot, 0, 0);
      r0.leave(at(40), r2.barrier);
    });
  });
  if (world_rank() != 0) return;
  const auto& cube = result.cube;
  EXPECT_NEAR(value(cube, "wait_at_barrier", "main/MPI_Barrier", 0), us(30), kTol);
  EXPECT_NEAR(value(cube, "delay_barrier_short_term", "main/other", 1), us(10), kTol);
  EXPECT_NEAR(value(cube, "delay_late_sender_short_term", "main/work", 3), us(20), kTol);
  EXPECT_NEAR(value(cube, "delay_late_sender_long_term", "main/work", 3), us(20), kTol);
  EXPECT_NEAR(value(cube, "wait_propagating", "main/MPI_Recv", 1), us(20), kTol);
  EXPECT_NEAR(value(cube, "wait_direct", "main/MPI_Recv", 1), us(20), kTol);
}

TEST(AnalyzerDelay, LowerBoundNearAgreesWithLowerBound) {
  // The interval lookups' exponential search from a hint: whatever the hint
  // (before, at, after the answer, beyond the end), the answer is
  // std::lower_bound's, on sorted arrays with repeats, empty ones included.
  std::mt19937 random(7);
  for (int trial = 0; trial < 500; ++trial) {
    std::vector<int> items(random() % 40);
    for (int& item : items) item = static_cast<int>(random() % 30);
    std::sort(items.begin(), items.end());
    std::size_t hint = random() % 50;
    for (int query = 0; query < 40; ++query) {
      const int value = static_cast<int>(random() % 34) - 2;
      const auto expected = static_cast<std::size_t>(
          std::lower_bound(items.begin(), items.end(), value) - items.begin());
      const std::size_t found = analyzer::lower_bound_near(items, items.size(), value, hint,
                                                           [](int a, int b) { return a < b; });
      ASSERT_EQ(found, expected) << "trial " << trial << " value " << value;
      ASSERT_EQ(hint, found);
    }
  }
}

}  // namespace
}  // namespace orrery::testing

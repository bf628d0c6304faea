// The critical path, its imbalance and performance impact, and the
// imbalance heuristic, on hand-built traces with exact expected values.
// Times in microseconds after a base; calls that only synchronize take no
// time, so every value is a whole number of microseconds.

#include <gtest/gtest.h>

#include <algorithm>

#include "critical_path_model.h"
#include "support/scenario.h"

namespace orrery::testing {
namespace {

constexpr uint64_t U = 1000;        // one microsecond in ns
constexpr uint64_t B = 1000000000;  // base time
constexpr double kTol = 1e-12;
double us(double n) { return n * 1e-6; }
uint64_t at(uint64_t n) { return B + n * U; }

/// The critical path (both parts) at a call path and rank.
double on_path(const report::Cube& cube, const char* path, int rank) {
  return value(cube, "critical_path", path, rank) + value(cube, "critical_path_imbalance", path, rank);
}

/// Sum over all call paths of a rank of the critical path (both parts).
double path_time(const report::Cube& cube, int rank) {
  return rank_total(cube, "critical_path", rank) + rank_total(cube, "critical_path_imbalance", rank);
}

/// A blocking send at t (taking no time) and a receive [t0, t1] on the world.
void send(TestArchive::Rank& rank, const Regions& r, uint64_t t, uint32_t peer) {
  world_send(rank, r, at(t), peer);
}
void recv(TestArchive::Rank& rank, const Regions& r, uint64_t t0, uint64_t t1, uint32_t peer) {
  world_recv(rank, r, at(t0), at(t1), peer);
}

/// Rank k works 10 (k + 1) us, then enters a barrier everyone leaves at
/// 10 n; with `tail`, rank 0 then works 5 us in `other` and ends last, at
/// 1000 (the others end 1 us after the barrier).
void imbalanced_barrier(TestArchive& a, const Regions& r, int n, bool tail) {
  const uint32_t other = a.region("other");
  const uint64_t exit = 10 * static_cast<uint64_t>(n);
  for (int k = 0; k < n; ++k) {
    auto& rank = a.rank(static_cast<uint32_t>(k));
    const uint64_t work = 10 * static_cast<uint64_t>(k + 1);
    rank.enter(at(0), r.main);
    region(rank, r.work, at(0), at(work));
    rank.enter(at(work), r.barrier);
    rank.collective_begin(at(work));
    rank.collective_end(at(exit), Collective::kBarrier, TestArchive::kWorld, TestArchive::kNoRoot,
                        0, 0);
    rank.leave(at(exit), r.barrier);
    if (tail && k == 0) region(rank, other, at(exit), at(exit + 5));
    rank.leave(tail ? (k == 0 ? at(1000) : at(exit + 1)) : at(exit), r.main);
  }
}

TEST(AnalyzerCriticalPath, ChainRunsThroughTheSlowRanksWork) {
  // 3 -> 2 -> 1 -> 0: rank 3 works 40 us, the others 10 us; each receives
  // from its right neighbour (waiting until 40), then sends to its left
  // one. Rank 0 ends last, at 1000: the path runs back from its end to its
  // receive, to rank 1's send, rank 2's, rank 3's, and through rank 3's work.
  if (world_size() < 4) GTEST_SKIP() << "needs 4 ranks";
  auto result = analyze_scenario("critical_chain", [](TestArchive& a, const Regions& r) {
    auto& r3 = a.rank(3);
    r3.enter(at(0), r.main);
    region(r3, r.work, at(0), at(40));
    send(r3, r, 40, 2);
    r3.leave(at(41), r.main);
    for (uint32_t k = 0; k < 3; ++k) {
      auto& rank = a.rank(k);
      rank.enter(at(0), r.main);
      region(rank, r.work, at(0), at(10));
      recv(rank, r, 10, 40, k + 1);
      if (k > 0) send(rank, r, 40, k - 1);
      rank.leave(k == 0 ? at(1000) : at(44 - k), r.main);
    }
  });
  EXPECT_EQ(result.critical_path.last_rank, 0u);
  EXPECT_EQ(result.critical_path.hops, 3u);
  EXPECT_EQ(result.critical_path.looked_ahead, 0u);  // never straight back
  EXPECT_TRUE(result.critical_path.complete);
  if (world_rank() != 0) return;
  const auto& cube = result.cube;
  // On the path: rank 3's work (40) and rank 0's main after its receive (960).
  EXPECT_NEAR(on_path(cube, "main/work", 3), us(40), kTol);
  EXPECT_NEAR(on_path(cube, "main", 0), us(960), kTol);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(on_path(cube, "main/work", k), 0.0) << k;
  EXPECT_NEAR(path_time(cube, 1) + path_time(cube, 2), 0.0, kTol);
  EXPECT_NEAR(path_time(cube, 0) + path_time(cube, 3), us(1000), 1e-9);  // the run's length
  // work: mean over processes (40 + 3 x 10) / 4 = 17.5, CP 40: 22.5 above
  // the mean, at rank 3; the gain goes to the three that waited (30 each).
  EXPECT_NEAR(value(cube, "critical_path_imbalance", "main/work", 3), us(22.5), kTol);
  EXPECT_NEAR(value(cube, "critical_path", "main/work", 3), us(17.5), kTol);
  EXPECT_EQ(value(cube, "performance_impact", "main/work", 3), 0.0);
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(value(cube, "performance_impact", "main/work", k), us(7.5), kTol) << k;
  }
  // The receives' waiting is never on the path.
  for (int k = 0; k < 3; ++k) EXPECT_EQ(on_path(cube, "main/MPI_Recv", k), 0.0) << k;
  // Imbalance heuristic of work: mean 17.5 over the four visitors.
  EXPECT_NEAR(value(cube, "imbalance_above", "main/work", 3), us(22.5), kTol);
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(value(cube, "imbalance_below", "main/work", k), us(7.5), kTol) << k;
  }
  EXPECT_EQ(rank_total(cube, "imbalance", 3), 0.0);  // an aggregate
}

TEST(AnalyzerCriticalPath, ImbalancedBarrierMovesToTheLastToEnter) {
  const int n = world_size();
  auto result = analyze_scenario("critical_barrier", [n](TestArchive& a, const Regions& r) {
    imbalanced_barrier(a, r, n, true);
  });
  EXPECT_EQ(result.critical_path.last_rank, 0u);
  EXPECT_EQ(result.critical_path.hops, n > 1 ? 1u : 0u);
  if (world_rank() != 0 || n < 2) return;
  const auto& cube = result.cube;
  EXPECT_NEAR(on_path(cube, "main/work", n - 1), us(10.0 * n), kTol);
  EXPECT_NEAR(on_path(cube, "main/other", 0), us(5), kTol);
  EXPECT_NEAR(on_path(cube, "main", 0), us(1000.0 - 10.0 * n - 5), kTol);
  EXPECT_EQ(on_path(cube, "main/work", 0), 0.0);
  EXPECT_EQ(on_path(cube, "main/MPI_Barrier", 0), 0.0);
  for (int k = 1; k + 1 < n; ++k) EXPECT_EQ(path_time(cube, k), 0.0) << k;
  // work: CP 10 n, mean 10 (n + 1) / 2.
  const double excess = 10.0 * n - 10.0 * (n + 1) / 2;
  EXPECT_NEAR(value(cube, "critical_path_imbalance", "main/work", n - 1), us(excess), kTol);
  double impact = 0;
  for (int k = 0; k < n; ++k) impact += value(cube, "performance_impact", "main/work", k);
  EXPECT_NEAR(impact, us(excess), kTol);
  // rank k waited 10 (n - k - 1): its share of the gain is in proportion.
  const double waited = 10.0 * n * (n - 1) / 2;
  EXPECT_NEAR(value(cube, "performance_impact", "main/work", 0), us(excess * 10.0 * (n - 1) / waited),
              kTol);
}

TEST(AnalyzerCriticalPath, LateBroadcastMovesToTheRoot) {
  // The root (rank 0) works 40 us, the others 10; the broadcast ends at 41.
  // Rank 1 ends last (1000): its 1 us of broadcast after the root arrived
  // is on the path, then the root's work.
  if (world_size() < 2) GTEST_SKIP() << "needs 2 ranks";
  const int n = world_size();
  auto result = analyze_scenario("critical_bcast", [n](TestArchive& a, const Regions& r) {
    for (int k = 0; k < n; ++k) {
      auto& rank = a.rank(static_cast<uint32_t>(k));
      const uint64_t work = k == 0 ? 40 : 10;
      rank.enter(at(0), r.main);
      region(rank, r.work, at(0), at(work));
      rank.enter(at(work), r.bcast);
      rank.collective_begin(at(work));
      rank.collective_end(at(41), Collective::kBcast, TestArchive::kWorld, 0, 8, 8);
      rank.leave(at(41), r.bcast);
      rank.leave(k == 1 ? at(1000) : at(42), r.main);
    }
  });
  EXPECT_EQ(result.critical_path.last_rank, 1u);
  if (world_rank() != 0) return;
  const auto& cube = result.cube;
  EXPECT_NEAR(on_path(cube, "main/MPI_Bcast", 1), us(1), kTol);
  EXPECT_NEAR(on_path(cube, "main", 1), us(1000 - 41), kTol);
  EXPECT_NEAR(on_path(cube, "main/work", 0), us(40), kTol);
  EXPECT_EQ(on_path(cube, "main/work", 1), 0.0);
  EXPECT_NEAR(path_time(cube, 0) + path_time(cube, 1), us(1000), 1e-9);
}

TEST(AnalyzerCriticalPath, BarrierAndLateBroadcastOnOneCommunicator) {
  // A barrier (no root) the last rank enters at 50, then a broadcast whose
  // root (rank 0) works 30 us after it; rank 1 ends last (1000). The path:
  // rank 1's broadcast after the root arrived (1 us) and its end, the
  // root's work after the barrier, the last rank's work before it. (A
  // communicator with both kinds reduces three (time, rank) pairs per
  // instance; one with barriers alone, one: ImbalancedBarrierMovesToTheLastToEnter.)
  if (world_size() < 2) GTEST_SKIP() << "needs 2 ranks";
  const int n = world_size();
  auto result = analyze_scenario("critical_barrier_bcast", [n](TestArchive& a, const Regions& r) {
    const uint32_t other = a.region("other");
    for (int k = 0; k < n; ++k) {
      auto& rank = a.rank(static_cast<uint32_t>(k));
      const uint64_t work = k == n - 1 ? 50 : 10;
      const uint64_t after = k == 0 ? 80 : 55;
      rank.enter(at(0), r.main);
      region(rank, r.work, at(0), at(work));
      rank.enter(at(work), r.barrier);
      rank.collective_begin(at(work));
      rank.collective_end(at(50), Collective::kBarrier, TestArchive::kWorld, TestArchive::kNoRoot, 0, 0);
      rank.leave(at(50), r.barrier);
      region(rank, other, at(50), at(after));
      rank.enter(at(after), r.bcast);
      rank.collective_begin(at(after));
      rank.collective_end(at(81), Collective::kBcast, TestArchive::kWorld, 0, 8, 8);
      rank.leave(at(81), r.bcast);
      rank.leave(k == 1 ? at(1000) : at(82), r.main);
    }
  });
  EXPECT_EQ(result.critical_path.last_rank, 1u);
  EXPECT_EQ(result.critical_path.hops, 2u);
  if (world_rank() != 0) return;
  const auto& cube = result.cube;
  EXPECT_NEAR(on_path(cube, "main/MPI_Bcast", 1), us(1), kTol);
  EXPECT_NEAR(on_path(cube, "main", 1), us(1000 - 81), kTol);
  EXPECT_NEAR(on_path(cube, "main/other", 0), us(30), kTol);
  EXPECT_NEAR(on_path(cube, "main/work", n - 1), us(50), kTol);
  EXPECT_EQ(on_path(cube, "main/work", 0), 0.0);
  double total = 0;
  for (int k = 0; k < n; ++k) total += path_time(cube, k);
  EXPECT_NEAR(total, us(1000), 1e-9);
}

TEST(AnalyzerCriticalPath, LateReceiverMovesToTheReceiversPost) {
  // Rank 0's synchronous send [0, 41] waits until rank 1, after 40 us of
  // work, posts its receive; rank 0 ends last (1000). Other ranks idle.
  const int n = world_size();
  if (n < 2) GTEST_SKIP() << "needs 2 ranks";
  auto result = analyze_scenario("critical_late_receiver", [n](TestArchive& a, const Regions& r) {
    auto& r0 = a.rank(0);
    r0.enter(at(0), r.main);
    r0.enter(at(0), r.ssend);
    r0.send(at(0), 1, TestArchive::kWorld, 0, 8);
    r0.leave(at(41), r.ssend);
    r0.leave(at(1000), r.main);
    auto& r1 = a.rank(1);
    r1.enter(at(0), r.main);
    region(r1, r.work, at(0), at(40));
    recv(r1, r, 40, 41, 0);
    r1.leave(at(42), r.main);
    for (int k = 2; k < n; ++k) region(a.rank(static_cast<uint32_t>(k)), r.main, at(0), at(50));
  });
  EXPECT_EQ(result.critical_path.hops, 1u);
  if (world_rank() != 0) return;
  const auto& cube = result.cube;
  EXPECT_NEAR(on_path(cube, "main/MPI_Ssend", 0), us(1), kTol);  // after the receive was posted
  EXPECT_NEAR(on_path(cube, "main", 0), us(1000 - 41), kTol);
  EXPECT_NEAR(on_path(cube, "main/work", 1), us(40), kTol);
  EXPECT_EQ(on_path(cube, "main/MPI_Recv", 1), 0.0);
  EXPECT_NEAR(path_time(cube, 0) + path_time(cube, 1), us(1000), 1e-9);
}

TEST(AnalyzerCriticalPath, PingPongFollowsTheLookAhead) {
  // The path bounces between ranks 0 and 1: rank 1 computes `other` 30 us
  // and sends; rank 0 (which waited) computes `other` 40 us and sends back;
  // rank 1 (which waited) computes 30 more and sends; rank 0 ends last. The
  // walk skips the move to rank 1 and back (rank 1's look-ahead), and rank 1
  // still gets its stretch [70, 100] afterwards. Other ranks idle.
  const int n = world_size();
  if (n < 2) GTEST_SKIP() << "needs 2 ranks";
  auto result = analyze_scenario("critical_ping_pong", [n](TestArchive& a, const Regions& r) {
    const uint32_t other = a.region("other");
    auto& r0 = a.rank(0);
    r0.enter(at(0), r.main);
    region(r0, r.work, at(0), at(10));
    recv(r0, r, 10, 30, 1);
    region(r0, other, at(30), at(70));
    send(r0, r, 70, 1);
    region(r0, r.work, at(70), at(80));
    recv(r0, r, 80, 100, 1);
    r0.leave(at(1000), r.main);
    auto& r1 = a.rank(1);
    r1.enter(at(0), r.main);
    region(r1, other, at(0), at(30));
    send(r1, r, 30, 0);
    region(r1, r.work, at(30), at(40));
    recv(r1, r, 40, 70, 0);
    region(r1, other, at(70), at(100));
    send(r1, r, 100, 0);
    r1.leave(at(101), r.main);
    for (int k = 2; k < n; ++k) region(a.rank(static_cast<uint32_t>(k)), r.main, at(0), at(50));
  });
  EXPECT_EQ(result.critical_path.last_rank, 0u);
  EXPECT_EQ(result.critical_path.hops, 3u);
  EXPECT_EQ(result.critical_path.looked_ahead, 2u);  // to rank 1 and back: skipped
  EXPECT_TRUE(result.critical_path.complete);
  if (world_rank() != 0) return;
  const auto& cube = result.cube;
  EXPECT_NEAR(on_path(cube, "main", 0), us(900), kTol);
  EXPECT_NEAR(on_path(cube, "main/other", 0), us(40), kTol);
  EXPECT_NEAR(on_path(cube, "main/other", 1), us(60), kTol);
  EXPECT_EQ(on_path(cube, "main/work", 0), 0.0);
  EXPECT_EQ(on_path(cube, "main/work", 1), 0.0);
  EXPECT_NEAR(path_time(cube, 0) + path_time(cube, 1), us(1000), 1e-9);
  for (int k = 2; k < n; ++k) EXPECT_EQ(path_time(cube, k), 0.0) << k;
}

TEST(AnalyzerCriticalPath, AlternatingBarriersFollowTheLookAhead) {
  // Two barriers over ranks 0 and 1: at the first rank 0 waits (rank 1
  // works 30 us, rank 0 10), at the second rank 1 waits (rank 0 works 40 us
  // in `other`, rank 1 10 in `work`). Rank 1 ends last (1000). The walk
  // goes from rank 1 to rank 0 and straight back: skipped by rank 0's
  // look-ahead, shared through the second barrier's reduction.
  const int n = world_size();
  if (n < 2) GTEST_SKIP() << "needs 2 ranks";
  auto result = analyze_scenario("critical_barriers", [n](TestArchive& a, const Regions& r) {
    const uint32_t other = a.region("other");
    const uint32_t pair = a.comm("pair", {0, 1});
    const auto barrier = [&](TestArchive::Rank& rank, uint64_t enter, uint64_t exit) {
      rank.enter(at(enter), r.barrier);
      rank.collective_begin(at(enter));
      rank.collective_end(at(exit), Collective::kBarrier, pair, TestArchive::kNoRoot, 0, 0);
      rank.leave(at(exit), r.barrier);
    };
    auto& r0 = a.rank(0);
    r0.enter(at(0), r.main);
    region(r0, r.work, at(0), at(10));
    barrier(r0, 10, 30);
    region(r0, other, at(30), at(70));
    barrier(r0, 70, 70);
    r0.leave(at(71), r.main);
    auto& r1 = a.rank(1);
    r1.enter(at(0), r.main);
    region(r1, other, at(0), at(30));
    barrier(r1, 30, 30);
    region(r1, r.work, at(30), at(40));
    barrier(r1, 40, 70);
    r1.leave(at(1000), r.main);
    for (int k = 2; k < n; ++k) region(a.rank(static_cast<uint32_t>(k)), r.main, at(0), at(50));
  });
  EXPECT_EQ(result.critical_path.last_rank, 1u);
  EXPECT_EQ(result.critical_path.hops, 2u);
  EXPECT_EQ(result.critical_path.looked_ahead, 2u);
  if (world_rank() != 0) return;
  const auto& cube = result.cube;
  EXPECT_NEAR(on_path(cube, "main", 1), us(930), kTol);
  EXPECT_NEAR(on_path(cube, "main/other", 0), us(40), kTol);
  EXPECT_NEAR(on_path(cube, "main/other", 1), us(30), kTol);
  EXPECT_EQ(on_path(cube, "main/work", 0), 0.0);
  EXPECT_EQ(on_path(cube, "main/work", 1), 0.0);
  EXPECT_NEAR(path_time(cube, 0) + path_time(cube, 1), us(1000), 1e-9);
}

TEST(AnalyzerCriticalPath, FunctionGroupsOfTheRun) {
  // Computation is imbalanced one way (rank k works 10 (k + 1) us), the
  // barrier the other way (rank k waits 10 (n - k - 1) us).
  const int n = world_size();
  if (n < 2) GTEST_SKIP() << "needs 2 ranks";
  auto result = analyze_scenario("critical_groups", [n](TestArchive& a, const Regions& r) {
    imbalanced_barrier(a, r, n, false);
  });
  if (world_rank() != 0) return;
  const report::FunctionGroups& groups = result.groups;
  ASSERT_EQ(groups.locations, static_cast<std::size_t>(n));
  std::size_t computation = groups.groups.size(), collective = groups.groups.size();
  for (std::size_t g = 0; g < groups.groups.size(); ++g) {
    if (groups.groups[g].name == "Computation") computation = g;
    if (groups.groups[g].name == "MPI collective") collective = g;
  }
  ASSERT_LT(computation, groups.groups.size());
  ASSERT_LT(collective, groups.groups.size());
  for (int k = 0; k < n; ++k) {
    const auto l = static_cast<std::size_t>(k);
    EXPECT_NEAR(groups.time[computation * n + l], us(10.0 * (k + 1)), kTol) << k;
    EXPECT_NEAR(groups.time[collective * n + l], us(10.0 * (n - k - 1)), kTol) << k;
  }
  // The whole run is flat (every rank 10 n): against a flat parent 0.5.
  EXPECT_DOUBLE_EQ(groups.groups[computation].similarity, 0.5);
  // The barrier's one child (MPI_Barrier) has exactly its parent's shape.
  ASSERT_LT(collective + 1, groups.groups.size());
  EXPECT_EQ(groups.groups[collective + 1].parent, static_cast<int32_t>(collective));
  EXPECT_DOUBLE_EQ(groups.groups[collective + 1].similarity, 1.0);
}

}  // namespace
namespace cp = orrery::analyzer::critical_path;

TEST(AnalyzerCriticalPath, CursorOverWaitPointsAnswersLikeTheBinarySearch) {
  // Wait points at calls 10, 20, ..., 2000 (two at some calls are impossible:
  // one per call), queried forward, backward and at random: the galloping
  // cursor must give exactly latest_before's answers.
  std::vector<cp::WaitPoint> points;
  for (uint32_t call = 10; call <= 2000; call += 10) {
    cp::WaitPoint p;
    p.call = call;
    points.push_back(p);
  }
  std::vector<uint32_t> entries;
  for (uint32_t e = 0; e <= 2100; e += 3) entries.push_back(e);             // forward
  for (uint32_t e = 2100; e > 0; e -= 7) entries.push_back(e);              // backward
  for (uint32_t e = 5; e <= 2100; e += 155) entries.push_back(e);           // forward, 15 points apart
  for (uint32_t e = 3; e <= 2100; e += 455) entries.push_back(e);           // beyond the stepping
  uint32_t state = 12345;
  for (int k = 0; k < 2000; ++k) {                                         // random
    state = state * 1103515245u + 12345u;
    entries.push_back((state >> 8) % 2200);
  }
  for (const std::vector<cp::WaitPoint>& set : std::vector<std::vector<cp::WaitPoint>>{
           points, {}, std::vector<cp::WaitPoint>(points.begin(), points.begin() + 1)}) {
    cp::LatestWaitBefore cursor(set), positions(set);
    for (const uint32_t entry : entries) {
      ASSERT_EQ(cursor(entry), cp::latest_before(set, entry)) << "entry " << entry;
      const auto first = std::lower_bound(set.begin(), set.end(), entry,
                                          [](const cp::WaitPoint& p, uint32_t e) { return p.call < e; });
      ASSERT_EQ(positions.first_not_before(entry), static_cast<std::size_t>(first - set.begin())) << "entry " << entry;
    }
  }
}

TEST(AnalyzerCriticalPath, TokenPackingRoundTripsWhatThePartnerNeeds) {
  // One int64 per message carries a look-ahead or a note: a message's token
  // keeps its kind and route number (b is the sender, known to the
  // receiver), a collective's its communicator (sparse ids: by place) and
  // ordinal; "none" and "unknown" stay apart from every token.
  analyzer::Definitions definitions;
  for (const uint32_t id : {3u, 17u, 4000000000u}) definitions.comms[id] = analyzer::CommDef{};
  const cp::TokenPacking packing(definitions);
  const std::vector<cp::Token> tokens = {
      {cp::ResumeKind::kSend, 0, 5, 0},
      {cp::ResumeKind::kRecv, 4294967295LL, 5, 0},
      {cp::ResumeKind::kCollective, 4000000000LL, 4294967295LL, 0},
      {cp::ResumeKind::kCollective, 3, 0, 0},
  };
  for (const cp::Token& token : tokens) {
    const int64_t value = packing.pack(token);
    EXPECT_GT(value, 0) << "a token is never 'none' (0) nor 'unknown' (kNoValue)";
    const cp::Token back = packing.unpack(value, 5);
    EXPECT_EQ(back.kind, token.kind);
    EXPECT_EQ(back.a, token.a);
    EXPECT_EQ(back.b, token.b);
  }
  EXPECT_NE(packing.pack(tokens[2]), packing.pack(tokens[3]));
  EXPECT_EQ(packing.unpack(0, 5).kind, cp::ResumeKind::kDone);
  EXPECT_EQ(packing.unpack(analyzer::kNoValue, 5).kind, cp::ResumeKind::kDone);
}

}  // namespace orrery::testing

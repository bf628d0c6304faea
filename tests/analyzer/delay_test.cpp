// Delay costs (root causes) and wait-state classes on hand-built traces
// with exact expected values. Times in microseconds after a base; calls that
// only synchronize take no time, so every waiting time is a whole number.

#include <gtest/gtest.h>

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
      region(a2.rank(3), r2.work, at(0), at(40));
      send(a2.rank(3), r2.send, at(40), 2);
      for (uint32_t k = 0; k < 3; ++k) {
        region(a2.rank(k), r2.work, at(0), at(10));
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
      region(a2.rank(1), r2.work, at(0), at(30));
      region(a2.rank(1), other, at(30), at(50));
      send(a2.rank(1), r2.send, at(50), 0);
      region(a2.rank(2), other, at(0), at(80));
      send(a2.rank(2), r2.send, at(80), 0);
      region(a2.rank(0), r2.work, at(0), at(20));
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
      region(a2.rank(1), r2.work, at(0), at(40));
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

}  // namespace
}  // namespace orrery::testing

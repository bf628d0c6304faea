// Point-to-point patterns on hand-built traces with exact expected values.
// Times are written in microseconds (U ns) after a base, so severities are
// exact multiples of 1e-6 s.

#include <gtest/gtest.h>

#include <sstream>

#include "orrery/analyzer/summary.h"
#include "orrery/patterns/registry.h"
#include "support/scenario.h"

namespace orrery::testing {
namespace {

constexpr uint64_t U = 1000;        // one microsecond in ns
constexpr uint64_t B = 1000000000;  // base time
constexpr uint64_t END = B + 1000 * U;
constexpr double kTol = 1e-12;
double us(double n) { return n * 1e-6; }
uint64_t at(uint64_t n) { return B + n * U; }

/// Opens main on every rank; `body` writes the inside; closes main.
void with_main(TestArchive& a, const Regions& r,
               const std::function<void(TestArchive&, const Regions&)>& body) {
  for (int k = 0; k < world_size(); ++k) a.rank(static_cast<uint32_t>(k)).enter(B, r.main);
  body(a, r);
  for (int k = 0; k < world_size(); ++k) a.rank(static_cast<uint32_t>(k)).leave(END, r.main);
}

/// A blocking receive [t0, t1] completing a message from `peer` at t1-ish.
void blocking_recv(TestArchive::Rank& rank, const Regions& r, uint64_t t0, uint64_t t1,
                   uint32_t peer, uint32_t tag = 0, uint32_t comm = TestArchive::kWorld) {
  rank.enter(t0, r.recv);
  rank.recv(t1, peer, comm, tag, 64);
  rank.leave(t1, r.recv);
}
/// An MPI_Irecv [t, t] posting request `request`.
void post_irecv(TestArchive::Rank& rank, const Regions& r, uint64_t t, uint64_t request) {
  rank.enter(t, r.irecv);
  rank.irecv_request(t, request);
  rank.leave(t, r.irecv);
}
/// An MPI_Wait [t0, t1] completing request `request` with a message from `peer`.
void complete_irecv(TestArchive::Rank& rank, const Regions& r, uint64_t t0, uint64_t t1,
                    uint32_t peer, uint64_t request) {
  rank.enter(t0, r.wait);
  rank.irecv(t1, peer, TestArchive::kWorld, 0, 64, request);
  rank.leave(t1, r.wait);
}
void blocking_send(TestArchive::Rank& rank, uint32_t region, uint64_t t0, uint64_t t1,
                   uint32_t peer, uint32_t tag = 0, uint32_t comm = TestArchive::kWorld) {
  rank.enter(t0, region);
  rank.send(t0, peer, comm, tag, 64);
  rank.leave(t1, region);
}

TEST(AnalyzerP2P, LateSenderBlocking) {
  auto result = analyze_scenario("late_sender", [](TestArchive& a, const Regions& r) {
    with_main(a, r, [](TestArchive& a2, const Regions& r2) {
      blocking_recv(a2.rank(0), r2, at(10), at(50), 1);
      region(a2.rank(1), r2.work, at(1), at(40));
      blocking_send(a2.rank(1), r2.send, at(40), at(42), 0);
    });
  });
  if (world_rank() != 0) return;
  const auto& cube = result.cube;
  EXPECT_NEAR(value(cube, "late_sender", "main/MPI_Recv", 0), us(30), kTol);
  EXPECT_NEAR(value(cube, "mpi_point2point", "main/MPI_Recv", 0), us(10), kTol);
  EXPECT_EQ(value(cube, "late_sender_count", "main/MPI_Recv", 0), 1.0);
  EXPECT_EQ(value(cube, "late_receiver", "main/MPI_Send", 1), 0.0);
  EXPECT_EQ(value(cube, "bytes_sent", "main/MPI_Send", 1), 64.0);
  EXPECT_EQ(value(cube, "bytes_received", "main/MPI_Recv", 0), 64.0);
  EXPECT_EQ(value(cube, "sends", "main/MPI_Send", 1), 1.0);
  EXPECT_EQ(value(cube, "receives", "main/MPI_Recv", 0), 1.0);
  EXPECT_EQ(value(cube, "visits", "main/MPI_Recv", 0), 1.0);
  EXPECT_NEAR(value(cube, "execution", "main/work", 1), us(39), kTol);
  EXPECT_EQ(result.statistics.clock_violations, 0u);
}

TEST(AnalyzerP2P, ProducerWithOtherLocationIds) {
  // Another OTF2 producer may number locations differently: ranks come from
  // the MPI locations group, not from the location ids.
  auto result = analyze_scenario(
      "location_ids",
      [](TestArchive& a, const Regions& r) {
        with_main(a, r, [](TestArchive& a2, const Regions& r2) {
          blocking_recv(a2.rank(0), r2, at(10), at(50), 1);
          blocking_send(a2.rank(1), r2.send, at(40), at(42), 0);
        });
      },
      true, uint64_t{1} << 32);
  if (world_rank() != 0) return;
  EXPECT_NEAR(value(result.cube, "late_sender", "main/MPI_Recv", 0), us(30), kTol);
  EXPECT_EQ(result.cube.header.locations.size(), static_cast<std::size_t>(world_size()));
}

TEST(AnalyzerP2P, ZeroWaitingWhenSenderIsEarly) {
  auto result = analyze_scenario("zero_wait", [](TestArchive& a, const Regions& r) {
    with_main(a, r, [](TestArchive& a2, const Regions& r2) {
      blocking_send(a2.rank(1), r2.send, at(10), at(12), 0);
      region(a2.rank(0), r2.work, at(1), at(40));
      blocking_recv(a2.rank(0), r2, at(40), at(41), 1);
    });
  });
  if (world_rank() != 0) return;
  const auto& cube = result.cube;
  EXPECT_EQ(value(cube, "late_sender", "main/MPI_Recv", 0), 0.0);
  EXPECT_EQ(value(cube, "late_sender_count", "main/MPI_Recv", 0), 0.0);
  EXPECT_NEAR(value(cube, "mpi_point2point", "main/MPI_Recv", 0), us(1), kTol);
  // An eager send that returned before the receive was posted did not wait.
  EXPECT_EQ(value(cube, "late_receiver", "main/MPI_Send", 1), 0.0);
  EXPECT_EQ(value(cube, "late_receiver_count", "main/MPI_Send", 1), 0.0);
}

TEST(AnalyzerP2P, LateReceiverOnlyWhenTheSendWaited) {
  // Rank 0: an eager MPI_Send [10, 12] returns long before rank 1 posts its
  // receive (at 40); then a rendezvous-sized MPI_Send [50, 95] and an
  // MPI_Ssend [100, 150] both end after their receives were posted (at 80
  // and 130), so they really waited.
  auto result = analyze_scenario("eager_vs_sync", [](TestArchive& a, const Regions& r) {
    with_main(a, r, [](TestArchive& a2, const Regions& r2) {
      auto& r0 = a2.rank(0);
      blocking_send(r0, r2.send, at(10), at(12), 1, 1);
      region(r0, r2.work, at(20), at(48));
      blocking_send(r0, r2.send, at(50), at(95), 1, 2);
      blocking_send(r0, r2.ssend, at(100), at(150), 1, 3);
      auto& r1 = a2.rank(1);
      region(r1, r2.work, at(1), at(40));
      blocking_recv(r1, r2, at(40), at(41), 0, 1);
      region(r1, r2.work, at(42), at(80));
      blocking_recv(r1, r2, at(80), at(96), 0, 2);
      region(r1, r2.work, at(97), at(130));
      blocking_recv(r1, r2, at(130), at(151), 0, 3);
    });
  });
  if (world_rank() != 0) return;
  const auto& cube = result.cube;
  // The eager send is not counted; the rendezvous send waited 80 - 50.
  EXPECT_NEAR(value(cube, "late_receiver", "main/MPI_Send", 0), us(30), kTol);
  EXPECT_EQ(value(cube, "late_receiver_count", "main/MPI_Send", 0), 1.0);
  EXPECT_NEAR(value(cube, "late_receiver", "main/MPI_Ssend", 0), us(30), kTol);
  EXPECT_EQ(value(cube, "late_receiver_count", "main/MPI_Ssend", 0), 1.0);
}

TEST(AnalyzerP2P, LateReceiverSynchronousSend) {
  auto result = analyze_scenario("late_receiver", [](TestArchive& a, const Regions& r) {
    with_main(a, r, [](TestArchive& a2, const Regions& r2) {
      blocking_send(a2.rank(0), r2.ssend, at(10), at(50), 1, 3);
      region(a2.rank(1), r2.work, at(1), at(40));
      blocking_recv(a2.rank(1), r2, at(40), at(52), 0, 3);
    });
  });
  if (world_rank() != 0) return;
  const auto& cube = result.cube;
  EXPECT_NEAR(value(cube, "late_receiver", "main/MPI_Ssend", 0), us(30), kTol);
  EXPECT_EQ(value(cube, "late_receiver_count", "main/MPI_Ssend", 0), 1.0);
  EXPECT_NEAR(value(cube, "mpi_point2point", "main/MPI_Ssend", 0), us(10), kTol);
  EXPECT_EQ(value(cube, "late_sender", "main/MPI_Recv", 1), 0.0);
}

TEST(AnalyzerP2P, WaitallOverSeveralLateSendersCountsTheLatest) {
  if (world_size() < 3) GTEST_SKIP() << "needs 3 ranks";
  auto result = analyze_scenario("waitall", [](TestArchive& a, const Regions& r) {
    with_main(a, r, [](TestArchive& a2, const Regions& r2) {
      auto& r0 = a2.rank(0);
      r0.enter(at(5), r2.irecv);
      r0.irecv_request(at(5), 1);
      r0.leave(at(6), r2.irecv);
      r0.enter(at(7), r2.irecv);
      r0.irecv_request(at(7), 2);
      r0.leave(at(8), r2.irecv);
      r0.enter(at(10), r2.waitall);
      r0.irecv(at(69), 2, TestArchive::kWorld, 0, 16, 2);
      r0.irecv(at(70), 1, TestArchive::kWorld, 0, 16, 1);
      r0.leave(at(70), r2.waitall);
      blocking_send(a2.rank(1), r2.send, at(30), at(31), 0);
      // Rank 2 posts an Isend and completes it in a Wait.
      auto& r2r = a2.rank(2);
      r2r.enter(at(60), r2.isend);
      r2r.isend(at(60), 0, TestArchive::kWorld, 0, 16, 9);
      r2r.leave(at(61), r2.isend);
      r2r.enter(at(62), r2.wait);
      r2r.isend_complete(at(63), 9);
      r2r.leave(at(63), r2.wait);
    });
  });
  if (world_rank() != 0) return;
  const auto& cube = result.cube;
  EXPECT_NEAR(value(cube, "late_sender", "main/MPI_Waitall", 0), us(50), kTol);
  EXPECT_EQ(value(cube, "late_sender_count", "main/MPI_Waitall", 0), 1.0);
  EXPECT_EQ(value(cube, "receives", "main/MPI_Waitall", 0), 2.0);
  EXPECT_EQ(value(cube, "bytes_received", "main/MPI_Waitall", 0), 32.0);
  EXPECT_EQ(value(cube, "bytes_sent", "main/MPI_Isend", 2), 16.0);
  EXPECT_EQ(value(cube, "late_sender", "main/MPI_Irecv", 0), 0.0);
  // The Isend's receive was posted (at 7) before the Wait began: no late receiver.
  EXPECT_EQ(value(cube, "late_receiver", "main/MPI_Wait", 2), 0.0);
}

TEST(AnalyzerP2P, WaitallOverReceivesAndSendsCountsEachWaitOnce) {
  auto result = analyze_scenario("waitall_both", [](TestArchive& a, const Regions& r) {
    with_main(a, r, [](TestArchive& a2, const Regions& r2) {
      // Rank 0 waits for rank 1's message (sent at 40) and then for rank 1
      // to post the receive of its own message (at 60).
      auto& r0 = a2.rank(0);
      r0.enter(at(5), r2.irecv);
      r0.irecv_request(at(5), 1);
      r0.leave(at(6), r2.irecv);
      r0.enter(at(7), r2.isend);
      r0.isend(at(7), 1, TestArchive::kWorld, 0, 8, 2);
      r0.leave(at(8), r2.isend);
      r0.enter(at(10), r2.waitall);
      r0.irecv(at(79), 1, TestArchive::kWorld, 0, 8, 1);
      r0.isend_complete(at(80), 2);
      r0.leave(at(80), r2.waitall);
      auto& r1 = a2.rank(1);
      r1.enter(at(40), r2.isend);
      r1.isend(at(40), 0, TestArchive::kWorld, 0, 8, 3);
      r1.leave(at(41), r2.isend);
      r1.enter(at(60), r2.irecv);
      r1.irecv_request(at(60), 4);
      r1.leave(at(61), r2.irecv);
      r1.enter(at(62), r2.waitall);
      r1.isend_complete(at(63), 3);
      r1.irecv(at(64), 0, TestArchive::kWorld, 0, 8, 4);
      r1.leave(at(64), r2.waitall);
    });
  });
  if (world_rank() != 0) return;
  const auto& cube = result.cube;
  EXPECT_NEAR(value(cube, "late_sender", "main/MPI_Waitall", 0), us(30), kTol);
  EXPECT_NEAR(value(cube, "late_receiver", "main/MPI_Waitall", 0), us(20), kTol);
  EXPECT_NEAR(value(cube, "mpi_point2point", "main/MPI_Waitall", 0), us(20), kTol);
  EXPECT_EQ(value(cube, "late_sender", "main/MPI_Waitall", 1), 0.0);
  EXPECT_EQ(value(cube, "late_receiver", "main/MPI_Waitall", 1), 0.0);
}

TEST(AnalyzerP2P, WrongOrderOnlyWhenTheEarlierMessageCouldBeTaken) {
  // Rank 0 waits for rank 1 (late, sends at 40). Rank 2's message was sent
  // earlier (at 20), but rank 0 posts its receive only after the wait ended:
  // with blocking receives, and in the next "iteration" with an Irecv (a
  // fast neighbour's next halo). Neither could have been taken first.
  if (world_size() < 3) GTEST_SKIP() << "needs 3 ranks";
  auto result = analyze_scenario("not_wrong_order", [](TestArchive& a, const Regions& r) {
    with_main(a, r, [](TestArchive& a2, const Regions& r2) {
      auto& r0 = a2.rank(0);
      blocking_recv(r0, r2, at(10), at(50), 1);
      blocking_recv(r0, r2, at(55), at(56), 2);
      post_irecv(r0, r2, at(60), 3);
      complete_irecv(r0, r2, at(62), at(63), 2, 3);
      blocking_send(a2.rank(1), r2.send, at(40), at(41), 0);
      blocking_send(a2.rank(2), r2.send, at(20), at(21), 0);
      blocking_send(a2.rank(2), r2.send, at(22), at(23), 0);
    });
  });
  if (world_rank() != 0) return;
  const auto& cube = result.cube;
  EXPECT_NEAR(value(cube, "late_sender", "main/MPI_Recv", 0), us(30), kTol);
  EXPECT_EQ(rank_total(cube, "late_sender_wrong_order", 0), 0.0);
}

TEST(AnalyzerP2P, WrongOrderIsCarvedOutOfLateSender) {
  if (world_size() < 3) GTEST_SKIP() << "needs 3 ranks";
  auto result = analyze_scenario("wrong_order", [](TestArchive& a, const Regions& r) {
    with_main(a, r, [](TestArchive& a2, const Regions& r2) {
      // Rank 0 posts both receives, then first waits for rank 1 (late, sends
      // at 40) although rank 2's message (sent at 20) was already there and
      // its receive posted; it takes that one second.
      auto& r0 = a2.rank(0);
      post_irecv(r0, r2, at(5), 1);
      post_irecv(r0, r2, at(6), 2);
      complete_irecv(r0, r2, at(10), at(50), 1, 1);
      complete_irecv(r0, r2, at(55), at(56), 2, 2);
      blocking_send(a2.rank(1), r2.send, at(40), at(41), 0);
      blocking_send(a2.rank(2), r2.send, at(20), at(21), 0);
    });
  });
  if (world_rank() != 0) return;
  const auto& cube = result.cube;
  EXPECT_NEAR(value(cube, "late_sender_wrong_order", "main/MPI_Wait", 0), us(30), kTol);
  EXPECT_NEAR(value(cube, "late_sender", "main/MPI_Wait", 0), 0.0, kTol);
  EXPECT_EQ(value(cube, "late_sender_count", "main/MPI_Wait", 0), 1.0);
  // The summary lists Late Sender once, with its sub-metric included and
  // nested under it, not both side by side.
  std::ostringstream summary;
  const patterns::PatternRegistry registry;
  analyzer::print_summary(summary, cube, registry, result.statistics, "r.h5");
  const std::string text = summary.str();
  EXPECT_NE(text.find("\n  Late Sender: 0.000030 s"), std::string::npos) << text;
  EXPECT_NE(text.find("\n      of which Late Sender, Wrong Order: 0.000030 s"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("\n  Late Sender, Wrong Order:"), std::string::npos) << text;
  // 40 + 1 microseconds in MPI_Wait, 30 of them waiting.
  EXPECT_NEAR(value(cube, "mpi_point2point", "main/MPI_Wait", 0), us(11), kTol);
}

TEST(AnalyzerP2P, ClockOffsetBetweenRanksIsApplied) {
  auto result = analyze_scenario("clock_offset", [](TestArchive& a, const Regions& r) {
    // Rank 1's clock runs 500 us behind rank 0: local = reference - 500 us.
    const uint64_t skew = 500 * U;
    a.clock_offset(1, B - skew, static_cast<int64_t>(skew));
    a.clock_offset(1, END - skew, static_cast<int64_t>(skew));
    for (int k = 0; k < world_size(); ++k) {
      if (k != 1) a.rank(static_cast<uint32_t>(k)).enter(B, r.main);
    }
    auto& r1 = a.rank(1);
    r1.enter(B - skew, r.main);
    blocking_recv(a.rank(0), r, at(10), at(50), 1);
    r1.enter(at(40) - skew, r.send);
    r1.send(at(40) - skew, 0, TestArchive::kWorld, 0, 64);
    r1.leave(at(42) - skew, r.send);
    r1.leave(END - skew, r.main);
    for (int k = 0; k < world_size(); ++k) {
      if (k != 1) a.rank(static_cast<uint32_t>(k)).leave(END, r.main);
    }
  });
  if (world_rank() != 0) return;
  EXPECT_NEAR(value(result.cube, "late_sender", "main/MPI_Recv", 0), us(30), kTol);
  EXPECT_EQ(result.statistics.clock_violations, 0u);
}

TEST(AnalyzerP2P, ClockConditionViolationIsCountedAndCorrected) {
  auto build = [](TestArchive& a, const Regions& r) {
    with_main(a, r, [](TestArchive& a2, const Regions& r2) {
      // The receive "ends" at 49, before the send began at 60.
      a2.rank(0).enter(at(10), r2.recv);
      a2.rank(0).recv(at(49), 1, TestArchive::kWorld, 0, 8);
      a2.rank(0).leave(at(50), r2.recv);
      blocking_send(a2.rank(1), r2.send, at(60), at(61), 0);
    });
  };
  auto corrected = analyze_scenario("violation", build);
  auto uncorrected = analyze_scenario("violation_raw", build, false);
  if (world_rank() != 0) return;
  EXPECT_EQ(corrected.statistics.clock_violations, 1u);
  // Corrected (clock_condition.h): the receive completes 1 us after the
  // send's enter (61, a jump of 12 us); its leave keeps 99 % of its 1 us
  // (61.99); the jump is spread backward at 1 % per us, so the receive's
  // enter moves by 12 - 0.01 * (61 - 10) = 11.49 us to 21.49.
  constexpr double kRamp = 1e-8;  // the ramp is rounded to whole ns
  EXPECT_NEAR(value(corrected.cube, "late_sender", "main/MPI_Recv", 0), us(60 - 21.49), kRamp);
  EXPECT_NEAR(value(corrected.cube, "mpi_point2point", "main/MPI_Recv", 0), us(61.99 - 60), kRamp);
  // Uncorrected: the waiting is capped at the receive's exit (50).
  EXPECT_EQ(uncorrected.statistics.clock_violations, 0u);
  EXPECT_NEAR(value(uncorrected.cube, "late_sender", "main/MPI_Recv", 0), us(40), kTol);
}

TEST(AnalyzerP2P, ChainOfClockViolationsIsCorrectedTransitively) {
  if (world_size() < 3) GTEST_SKIP() << "needs 3 ranks";
  auto result = analyze_scenario("violation_chain", [](TestArchive& a, const Regions& r) {
    with_main(a, r, [](TestArchive& a2, const Regions& r2) {
      // 0 -> 1 violates by 11 us; once rank 1 is corrected (its receive to
      // 61, then 99 % of each interval: leave 61.99, send 66.94), its send
      // makes rank 2's receive (ending at 62) violate: moved to 67.94.
      blocking_send(a2.rank(0), r2.send, at(60), at(61), 1);
      a2.rank(1).enter(at(10), r2.recv);
      a2.rank(1).recv(at(49), 0, TestArchive::kWorld, 0, 8);
      a2.rank(1).leave(at(50), r2.recv);
      blocking_send(a2.rank(1), r2.send, at(55), at(56), 2);
      a2.rank(2).enter(at(20), r2.recv);
      a2.rank(2).recv(at(62), 1, TestArchive::kWorld, 0, 8);
      a2.rank(2).leave(at(62), r2.recv);
    });
  });
  if (world_rank() != 0) return;
  EXPECT_EQ(result.statistics.clock_violations, 2u);
  // Each receive's enter moves with the backward ramp: rank 1's to 21.49,
  // rank 2's by 5.94 - 0.01 * (67.94 - 20) = 5.4606 us to 25.4606.
  constexpr double kRamp = 1e-8;
  EXPECT_NEAR(value(result.cube, "late_sender", "main/MPI_Recv", 1), us(60 - 21.49), kRamp);
  EXPECT_NEAR(value(result.cube, "late_sender", "main/MPI_Recv", 2), us(66.94 - 25.4606), kRamp);
}

TEST(AnalyzerP2P, PersistentRequestsAreReplayedPerStart) {
  auto result = analyze_scenario("persistent", [](TestArchive& a, const Regions& r) {
    with_main(a, r, [](TestArchive& a2, const Regions& r2) {
      blocking_recv(a2.rank(0), r2, at(10), at(50), 1, 5);
      blocking_recv(a2.rank(0), r2, at(100), at(150), 1, 5);
      auto& r1 = a2.rank(1);
      for (uint64_t t : {40, 140}) {
        r1.enter(at(t), r2.start);
        r1.isend(at(t), 0, TestArchive::kWorld, 5, 64, 77);  // same request id each time
        r1.leave(at(t + 1), r2.start);
        r1.enter(at(t + 2), r2.wait);
        r1.isend_complete(at(t + 3), 77);
        r1.leave(at(t + 3), r2.wait);
      }
    });
  });
  if (world_rank() != 0) return;
  EXPECT_NEAR(value(result.cube, "late_sender", "main/MPI_Recv", 0), us(30 + 40), kTol);
  EXPECT_EQ(value(result.cube, "late_sender_count", "main/MPI_Recv", 0), 2.0);
  EXPECT_EQ(value(result.cube, "sends", "main/MPI_Start", 1), 2.0);
}

TEST(AnalyzerP2P, SubCommunicatorMessagesUseCommunicatorRanks) {
  if (world_size() < 4) GTEST_SKIP() << "needs 4 ranks";
  auto result = analyze_scenario("subcomm_p2p", [](TestArchive& a, const Regions& r) {
    const uint32_t odd = a.comm("odd", {3, 1});  // comm rank 0 = world 3, 1 = world 1
    with_main(a, r, [odd](TestArchive& a2, const Regions& r2) {
      // World rank 1 receives from comm rank 0 (world 3) on the sub-communicator.
      blocking_recv(a2.rank(1), r2, at(10), at(30), 0, 0, odd);
      blocking_send(a2.rank(3), r2.send, at(25), at(26), 1, 0, odd);
    });
  });
  if (world_rank() != 0) return;
  EXPECT_NEAR(value(result.cube, "late_sender", "main/MPI_Recv", 1), us(15), kTol);
}

TEST(AnalyzerP2P, TimeIsExclusiveAlongBothTrees) {
  auto result = analyze_scenario("exclusive", [](TestArchive& a, const Regions& r) {
    with_main(a, r, [](TestArchive& a2, const Regions& r2) {
      region(a2.rank(0), r2.work, at(1), at(9));
      blocking_recv(a2.rank(0), r2, at(10), at(50), 1);
      blocking_send(a2.rank(1), r2.send, at(40), at(42), 0);
      region(a2.rank(1), r2.flush, at(100), at(105));
    });
  });
  if (world_rank() != 0) return;
  const auto& cube = result.cube;
  // Every time metric summed over call paths equals the rank's wall time.
  for (int k = 0; k < world_size(); ++k) {
    double sum = 0;
    for (const char* m : {"time", "execution", "mpi", "mpi_management", "mpi_init_exit",
                          "mpi_synchronization", "mpi_sync_collective", "wait_at_barrier",
                          "barrier_completion", "mpi_rma_synchronization", "mpi_communication",
                          "mpi_point2point", "late_sender", "late_sender_wrong_order",
                          "late_receiver", "mpi_collective", "early_reduce", "early_scan",
                          "late_broadcast", "wait_at_nxn", "nxn_completion",
                          "mpi_rma_communication", "mpi_io", "overhead", "init_completion",
                          "finalize_wait", "wait_at_neighbor"}) {
      sum += rank_total(cube, m, k);
    }
    EXPECT_NEAR(sum, us(1000), 1e-9) << "rank " << k;
  }
  EXPECT_NEAR(value(cube, "execution", "main", 0), us(1000 - 8 - 40), kTol);
  EXPECT_NEAR(value(cube, "overhead", "main/ORRERY_FLUSH", 1), us(5), kTol);
  EXPECT_EQ(value(cube, "time", "main", 0), 0.0);
  EXPECT_EQ(value(cube, "mpi", "main/MPI_Recv", 0), 0.0);
}

TEST(AnalyzerP2P, SeveralTopLevelRegionsGetOneProgramRoot) {
  // No main: each rank has several top-level regions with gaps between them,
  // as an uninstrumented program's trace has (MPI calls only).
  auto result = analyze_scenario("program_root", [](TestArchive& a, const Regions& r) {
    for (int k = 0; k < world_size(); ++k) {
      auto& rank = a.rank(static_cast<uint32_t>(k));
      const uint64_t shift = static_cast<uint64_t>(k) * 3;
      region(rank, r.work, at(5 + shift), at(20));
      region(rank, r.barrier, at(30), at(40 + shift));
      region(rank, r.flush, at(70), at(75));
      region(rank, r.work, at(100), at(200 + shift));
    }
  });
  if (world_rank() != 0) return;
  const auto& cube = result.cube;
  int roots = 0;
  for (const auto& path : cube.header.callpaths) roots += path.parent < 0 ? 1 : 0;
  EXPECT_EQ(roots, 1);
  for (int k = 0; k < world_size(); ++k) {
    const double shift = 3.0 * k;
    const double wall = us(200 + shift - (5 + shift));
    double sum = 0;
    for (const char* m : {"execution", "mpi", "mpi_synchronization", "mpi_sync_collective",
                          "wait_at_barrier", "barrier_completion", "overhead"}) {
      sum += rank_total(cube, m, k);
    }
    EXPECT_NEAR(sum, wall, 1e-9) << "rank " << k;
    // Gaps between the top-level regions: [20,30], [40+s,70], [75,100].
    EXPECT_NEAR(value(cube, "execution", "program", k), us(10 + (30 - shift) + 25), 1e-9)
        << "rank " << k;
    EXPECT_NEAR(value(cube, "execution", "program/work", k), us(15 - shift + 100 + shift),
                1e-9);
    EXPECT_NEAR(value(cube, "overhead", "program/ORRERY_FLUSH", k), us(5), 1e-9);
    EXPECT_EQ(value(cube, "overhead", "program", k), 0.0);
  }
}

TEST(AnalyzerP2P, ProgramBeginAndEndAreTheProgramsRoot) {
  // Score-P writes ProgramBegin/ProgramEnd around main, a little before and
  // after it: the root is named after the program and spans them, so that
  // time is counted (execution of the root itself).
  auto result = analyze_scenario("program_begin_end", [](TestArchive& a, const Regions& r) {
    const uint32_t program = a.define_string("/home/user/bin/solver.x");
    for (int k = 0; k < world_size(); ++k) {
      auto& rank = a.rank(static_cast<uint32_t>(k));
      rank.program_begin(at(2), program);
      rank.enter(at(5), r.main);
      if (k == 0) blocking_recv(rank, r, at(10), at(50), 1);
      if (k == 1) blocking_send(rank, r.send, at(40), at(42), 0);
      rank.leave(at(100), r.main);
      rank.program_end(at(100 + 7 + static_cast<uint64_t>(k)), 0);
    }
  });
  if (world_rank() != 0) return;
  const auto& cube = result.cube;
  int roots = 0;
  for (const auto& path : cube.header.callpaths) roots += path.parent < 0 ? 1 : 0;
  EXPECT_EQ(roots, 1);
  for (int k = 0; k < world_size(); ++k) {
    EXPECT_NEAR(value(cube, "execution", "solver.x", k), us(3 + 7 + k), 1e-9) << k;
    EXPECT_NEAR(rank_total(cube, "time", k) + rank_total(cube, "execution", k) +
                    rank_total(cube, "mpi", k) + rank_total(cube, "mpi_point2point", k) +
                    rank_total(cube, "late_sender", k),
                us(100 + 7 + k - 2), 1e-9) << k;
  }
  EXPECT_NEAR(value(cube, "late_sender", "solver.x/main/MPI_Recv", 0), us(30), kTol);
}

TEST(AnalyzerP2P, ProgramBeginAndEndAtTheRootsBoundsAddNoSecondRoot) {
  // Orrery writes ProgramBegin/End at the Enter/Leave of its own root region.
  auto result = analyze_scenario("program_at_root", [](TestArchive& a, const Regions& r) {
    const uint32_t program = a.define_string("app");
    for (int k = 0; k < world_size(); ++k) {
      auto& rank = a.rank(static_cast<uint32_t>(k));
      rank.program_begin(at(0), program);
      rank.enter(at(0), r.main);
      if (k == 0) blocking_recv(rank, r, at(10), at(50), 1);
      if (k == 1) blocking_send(rank, r.send, at(40), at(42), 0);
      rank.leave(at(100), r.main);
      rank.program_end(at(100), 0);
    }
  });
  if (world_rank() != 0) return;
  int roots = 0;
  for (const auto& path : result.cube.header.callpaths) roots += path.parent < 0 ? 1 : 0;
  EXPECT_EQ(roots, 1);
  EXPECT_NEAR(value(result.cube, "late_sender", "main/MPI_Recv", 0), us(30), kTol);
  EXPECT_NEAR(value(result.cube, "execution", "main", 1), us(98), kTol);
}

TEST(AnalyzerP2P, OtherProducersBufferFlushesAndMeasurementOffAreRegions) {
  // Score-P records its buffer flushes as OTF2 BufferFlush events and
  // switched-off recording as MeasurementOnOff, not as regions. A flush is
  // overhead at the call path where it happened; an off period is a region
  // of its own; a late sender around them is still found exactly.
  auto result = analyze_scenario("measurement_events", [](TestArchive& a, const Regions& r) {
    for (int k = 0; k < world_size(); ++k) {
      auto& rank = a.rank(static_cast<uint32_t>(k));
      rank.enter(at(0), r.main);
      rank.enter(at(10), r.work);
      rank.buffer_flush(at(12), at(12 + 4 + static_cast<uint64_t>(k)));
      rank.leave(at(30), r.work);
      rank.measurement(at(40), false);
      rank.measurement(at(50), true);
      if (k == 0) {
        rank.enter(at(60), r.recv);
        rank.recv(at(90), 1, TestArchive::kWorld, 0, 8);
        rank.leave(at(91), r.recv);
      } else if (k == 1) {
        rank.enter(at(80), r.send);
        rank.send(at(81), 0, TestArchive::kWorld, 0, 8);
        rank.leave(at(82), r.send);
      }
      rank.measurement(at(95), false);  // never switched on again: ends with main
      rank.leave(at(100), r.main);
    }
  });
  if (world_rank() != 0) return;
  const auto& cube = result.cube;
  for (int k = 0; k < world_size(); ++k) {
    const double flush = us(4 + k);
    EXPECT_NEAR(value(cube, "overhead", "main/work/TRACE BUFFER FLUSH", k), flush, 1e-9) << k;
    EXPECT_NEAR(value(cube, "execution", "main/work", k), us(20) - flush, 1e-9) << k;
    EXPECT_NEAR(value(cube, "execution", "main/MEASUREMENT OFF", k), us(10 + 5), 1e-9) << k;
    EXPECT_EQ(value(cube, "visits", "main/MEASUREMENT OFF", k), 2.0) << k;
  }
  EXPECT_NEAR(value(cube, "late_sender", "main/MPI_Recv", 0), us(20), 1e-9);
}

TEST(AnalyzerP2P, OrrerysOwnFlushesAreCountedOnceAsTheirRegion) {
  // Orrery's measurement writes a BufferFlush event and an ORRERY_FLUSH
  // region around every flush: the region counts, the event is skipped.
  auto result = analyze_scenario("orrery_flushes", [](TestArchive& a, const Regions& r) {
    a.creator("Orrery liborrery-measure");
    for (int k = 0; k < world_size(); ++k) {
      auto& rank = a.rank(static_cast<uint32_t>(k));
      rank.enter(at(0), r.main);
      rank.buffer_flush(at(10), at(13));
      rank.enter(at(10), r.flush);
      rank.leave(at(13), r.flush);
      rank.leave(at(20), r.main);
    }
  });
  if (world_rank() != 0) return;
  // The summary warns about the flushes (docs/design.md §3).
  std::ostringstream summary;
  const patterns::PatternRegistry registry;
  analyzer::print_summary(summary, result.cube, registry, result.statistics, "r.h5");
  EXPECT_NE(summary.str().find("flushed its trace buffer " + std::to_string(world_size()) +
                               " times"),
            std::string::npos)
      << summary.str();
  for (int k = 0; k < world_size(); ++k) {
    EXPECT_NEAR(value(result.cube, "overhead", "main/ORRERY_FLUSH", k), us(3), 1e-9) << k;
    EXPECT_EQ(value(result.cube, "visits", "main/TRACE BUFFER FLUSH", k), 0.0) << k;
    EXPECT_NEAR(value(result.cube, "execution", "main", k), us(17), 1e-9) << k;
  }
}

}  // namespace
}  // namespace orrery::testing

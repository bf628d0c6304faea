// The what-if replay (what_if.h) and the POP efficiencies on hand-built
// traces with exact expected times, worked out by hand from the model:
// latency L = 10 us, bandwidth 1 GB/s (1 ns per byte), eager limit 64 KiB.
// Times in microseconds after a base; every rank's trace starts at 0.

#include <gtest/gtest.h>

#include <cmath>

#include "orrery/analyzer/what_if.h"
#include "orrery/error.h"
#include "orrery/report/trees.h"
#include "support/scenario.h"

namespace orrery::testing {
namespace {

constexpr uint64_t U = 1000;        // one microsecond in ns
constexpr uint64_t B = 1000000000;  // base time
constexpr double kTol = 1e-9;
double us(double n) { return n * 1e-6; }
uint64_t at(uint64_t n) { return B + n * U; }

const char* const kModel = "latency=10us,bandwidth=1GB/s";

/// The whole time of rank `rank` in the cube: every time metric at every call path.
double rank_time(const report::Cube& cube, int rank) {
  std::size_t time_row = 0;
  while (cube.header.metrics[time_row].name != "time") ++time_row;
  double total = 0;
  for (const std::size_t m : report::metric_subtree(cube.header, time_row)) {
    total += rank_total(cube, cube.header.metrics[m].name, rank);
  }
  return total;
}

void mpi_call(TestArchive::Rank& rank, uint32_t region, uint64_t t0, uint64_t t1,
              const std::function<void()>& inside) {
  rank.enter(at(t0), region);
  inside();
  rank.leave(at(t1), region);
}

/// Ranks 2.. (if any) only compute, 0..100.
void idle_ranks(TestArchive& a, const Regions& r) {
  for (int k = 2; k < world_size(); ++k) {
    auto& rank = a.rank(static_cast<uint32_t>(k));
    rank.enter(at(0), r.main);
    rank.leave(at(100), r.main);
  }
}

/// Rank 0 computes 100, sends `bytes` to rank 1 [100, 102], receives the
/// answer [102, 190], computes 50. Rank 1 computes 150 (the receive is
/// late), receives [150, 160], computes 20, answers [180, 181], computes 19.
void ping_pong(TestArchive& a, const Regions& r, uint64_t bytes) {
  auto& r0 = a.rank(0);
  r0.enter(at(0), r.main);
  region(r0, r.work, at(0), at(100));
  mpi_call(r0, r.send, 100, 102, [&] { r0.send(at(100), 1, TestArchive::kWorld, 0, bytes); });
  mpi_call(r0, r.recv, 102, 190, [&] { r0.recv(at(190), 1, TestArchive::kWorld, 0, bytes); });
  r0.leave(at(240), r.main);
  auto& r1 = a.rank(1);
  r1.enter(at(0), r.main);
  region(r1, r.work, at(0), at(150));
  mpi_call(r1, r.recv, 150, 160, [&] { r1.recv(at(160), 0, TestArchive::kWorld, 0, bytes); });
  region(r1, r.work, at(160), at(180));
  mpi_call(r1, r.send, 180, 181, [&] { r1.send(at(180), 0, TestArchive::kWorld, 0, bytes); });
  r1.leave(at(200), r.main);
  idle_ranks(a, r);
}

analyzer::AnalysisResult what_if(const std::string& name, const std::string& model,
                                 const std::function<void(TestArchive&, const Regions&)>& build,
                                 uint64_t eager_limit = 64 * 1024) {
  return analyze_scenario_with(name, build, [&](analyzer::AnalysisOptions& options) {
    options.what_if = analyzer::parse_machine_model(model);
    options.what_if->eager_limit = eager_limit;
  });
}

TEST(WhatIf, EagerPingPong) {
  // 1000 bytes: 1 us on the link. Rank 0 sends at 100 (done 101, in at 111);
  // rank 1 is in its receive from 150 on, answers at 170 (in at 181); rank 0
  // computes 50 after it: 231. Rank 1: done 171, + 19 = 190.
  auto result = what_if("eager", kModel, [](TestArchive& a, const Regions& r) { ping_pong(a, r, 1000); });
  if (world_rank() != 0) return;
  ASSERT_TRUE(result.predicted.has_value());
  EXPECT_NEAR(result.predicted->predicted_runtime, us(231), kTol);
  EXPECT_NEAR(result.predicted->measured_runtime, us(240), kTol);
  EXPECT_NEAR(rank_time(result.cube, 0), us(231), kTol);
  EXPECT_NEAR(rank_time(result.cube, 1), us(190), kTol);
  // The predicted run's own wait states: rank 0 waits in its receive from 101 to 170.
  EXPECT_NEAR(value(result.cube, "late_sender", "main/MPI_Recv", 0), us(69), kTol);
  EXPECT_NEAR(value(result.cube, "mpi_point2point", "main/MPI_Send", 0), us(1), kTol);
}

TEST(WhatIf, ComputeFactorScalesComputation) {
  // compute=0.5 halves every computation burst, folded regions included:
  // rank 0 sends at 50 (in at 61), rank 1 is in its receive from 75 and
  // answers at 85 (in at 96); rank 0 computes 25 more: 121.
  auto result = what_if("compute", std::string(kModel) + ",compute=0.5",
                        [](TestArchive& a, const Regions& r) { ping_pong(a, r, 1000); });
  if (world_rank() != 0) return;
  EXPECT_NEAR(result.predicted->predicted_runtime, us(121), kTol);
  EXPECT_NEAR(value(result.cube, "execution", "main/work", 0), us(50), kTol);
  EXPECT_NEAR(value(result.cube, "execution", "main/work", 1), us(85), kTol);
  EXPECT_NEAR(rank_time(result.cube, 1), us(95.5), kTol);
}

TEST(WhatIf, RendezvousPingPong) {
  // 100000 bytes (rendezvous, 100 us on the link): rank 0's send starts when
  // rank 1 posts at 150, done 250, in at 260; rank 1 answers at 280 once
  // rank 0 posted (250): done 380 (+19 = 399), in at 390, rank 0 ends 440.
  auto result = what_if("rendezvous", kModel,
                        [](TestArchive& a, const Regions& r) { ping_pong(a, r, 100000); });
  if (world_rank() != 0) return;
  EXPECT_NEAR(result.predicted->predicted_runtime, us(440), kTol);
  EXPECT_NEAR(rank_time(result.cube, 1), us(399), kTol);
  // The send lasts from 100 until its data left at 250; 50 of it before the receive was posted.
  EXPECT_NEAR(value(result.cube, "late_receiver", "main/MPI_Send", 0), us(50), kTol);
  EXPECT_NEAR(value(result.cube, "mpi_point2point", "main/MPI_Send", 0), us(100), kTol);
}

TEST(WhatIf, EagerLimitDecides) {
  // The same 100000 bytes sent eagerly: rank 0's send is done at 200
  // without waiting, in at 210; rank 1 receives at 210 (posted at 150),
  // answers at 230: done 330 (+19), in at 340, rank 0 ends 390.
  auto result = what_if("eager_limit", kModel,
                        [](TestArchive& a, const Regions& r) { ping_pong(a, r, 100000); },
                        1000000);
  if (world_rank() != 0) return;
  EXPECT_NEAR(result.predicted->predicted_runtime, us(390), kTol);
  EXPECT_NEAR(rank_time(result.cube, 1), us(349), kTol);
  // The send lasts 100 (its data on the link), not waiting for the receive.
  EXPECT_NEAR(value(result.cube, "late_receiver", "main/MPI_Send", 0) +
                  value(result.cube, "mpi_point2point", "main/MPI_Send", 0),
              us(100), kTol);
}

TEST(WhatIf, RingExchangeOfTwoHops) {
  // Issue 11's analytic case: 5 iterations of c = 20 us of computation and
  // an exchange of m = 1000 bytes there and back (rank 0 sends to rank 1,
  // which answers): each iteration takes c + 2(L + m/B) = 20 + 2 x 11 us on
  // rank 0, whatever the traced times were.
  constexpr uint64_t kIterations = 5;
  auto result = what_if("ring", kModel, [](TestArchive& a, const Regions& r) {
    for (uint32_t k = 0; k < 2; ++k) {
      auto& rank = a.rank(k);
      rank.enter(at(0), r.main);
      for (uint64_t i = 0; i < kIterations; ++i) {
        const uint64_t t = 100 * i;  // traced: compute 20, then MPI until t + 100
        region(rank, r.work, at(t), at(t + 20));
        const auto send = [&](uint64_t when) {
          mpi_call(rank, r.send, when, when + 3,
                   [&] { rank.send(at(when), 1 - k, TestArchive::kWorld, 0, 1000); });
        };
        const auto recv = [&](uint64_t from, uint64_t to) {
          mpi_call(rank, r.recv, from, to, [&] { rank.recv(at(to), 1 - k, TestArchive::kWorld, 0, 1000); });
        };
        if (k == 0) {
          send(t + 20);
          recv(t + 23, t + 100);
        } else {
          recv(t + 20, t + 97);
          send(t + 97);
        }
      }
      rank.leave(at(100 * kIterations), r.main);
    }
    idle_ranks(a, r);
  });
  if (world_rank() != 0) return;
  EXPECT_NEAR(rank_time(result.cube, 0), us(kIterations * (20 + 2 * 11)), kTol);
}

TEST(WhatIf, SenderDecidesTheProtocol) {
  // The trace disagrees about the size (100000 bytes sent, 50 received): the
  // sender's count decides (rendezvous) on both sides, so nothing waits for a
  // value that never comes. The send starts at 10 (posted at 0) and takes
  // 100 us; rank 0 computes 39 more: 149.
  auto result = what_if("protocol", kModel, [](TestArchive& a, const Regions& r) {
    auto& r0 = a.rank(0);
    r0.enter(at(0), r.main);
    region(r0, r.work, at(0), at(10));
    mpi_call(r0, r.send, 10, 11, [&] { r0.send(at(10), 1, TestArchive::kWorld, 0, 100000); });
    r0.leave(at(50), r.main);
    auto& r1 = a.rank(1);
    r1.enter(at(0), r.main);
    mpi_call(r1, r.recv, 0, 20, [&] { r1.recv(at(20), 0, TestArchive::kWorld, 0, 50); });
    r1.leave(at(50), r.main);
    idle_ranks(a, r);
  });
  if (world_rank() != 0) return;
  EXPECT_NEAR(rank_time(result.cube, 0), us(149), kTol);
}

TEST(WhatIf, NonBlockingExchange) {
  // Both ranks post a receive, send 1000 bytes, wait for both (until 30
  // after their start) and compute until 100. Rank 0 starts at 10, rank 1
  // at 30: rank 1's message is in at 41, rank 0 ends 41 + 60; rank 1's
  // receive is in at 21 and its send done at 31: 31 + 40.
  auto result = what_if("nonblocking", kModel, [](TestArchive& a, const Regions& r) {
    for (uint32_t k = 0; k < 2; ++k) {
      auto& rank = a.rank(k);
      const uint64_t start = k == 0 ? 10 : 30;
      rank.enter(at(0), r.main);
      region(rank, r.work, at(0), at(start));
      mpi_call(rank, r.irecv, start, start + 1, [&] { rank.irecv_request(at(start), 1); });
      mpi_call(rank, r.isend, start + 1, start + 2,
               [&] { rank.isend(at(start + 1), 1 - k, TestArchive::kWorld, 0, 1000, 2); });
      mpi_call(rank, r.waitall, start + 2, start + 30, [&] {
        rank.irecv(at(start + 30), 1 - k, TestArchive::kWorld, 0, 1000, 1);
        rank.isend_complete(at(start + 30), 2);
      });
      rank.leave(at(100), r.main);
    }
    idle_ranks(a, r);
  });
  if (world_rank() != 0) return;
  EXPECT_NEAR(result.predicted->predicted_runtime, us(101), kTol);
  EXPECT_NEAR(rank_time(result.cube, 0), us(101), kTol);
  EXPECT_NEAR(rank_time(result.cube, 1), us(71), kTol);
}

TEST(WhatIf, Collectives) {
  // Rank r enters an Allreduce of 800 bytes at 10(r+1): it ends
  // R(L + 0.8 us) after the last one entered (R = ceil(log2 P) rounds);
  // 10 of computation, then a Bcast of 800 bytes from rank 0: the root is
  // done after R·0.8 us, the others R(L + 0.8 us) after the root entered.
  const auto p = static_cast<uint64_t>(world_size());
  auto result = what_if("collectives", kModel, [p](TestArchive& a, const Regions& r) {
    for (uint32_t k = 0; k < p; ++k) {
      auto& rank = a.rank(k);
      rank.enter(at(0), r.main);
      region(rank, r.work, at(0), at(10 * (k + 1)));
      mpi_call(rank, r.allreduce, 10 * (k + 1), 60, [&] {
        rank.collective_begin(at(10 * (k + 1)));
        rank.collective_end(at(60), Collective::kAllreduce, TestArchive::kWorld,
                            TestArchive::kNoRoot, 800, 800);
      });
      region(rank, r.work, at(60), at(70));
      mpi_call(rank, r.bcast, 70, 90, [&] {
        rank.collective_begin(at(70));
        rank.collective_end(at(90), Collective::kBcast, TestArchive::kWorld, 0, 800, 800);
      });
      rank.leave(at(100), r.main);
    }
  });
  if (world_rank() != 0) return;
  const double rounds = std::ceil(std::log2(static_cast<double>(p)));
  const double allreduce_exit = 10.0 * static_cast<double>(p) + rounds * 10.8;
  EXPECT_NEAR(rank_time(result.cube, 0), us(allreduce_exit + 10 + rounds * 0.8 + 10), kTol);
  EXPECT_NEAR(rank_time(result.cube, 1), us(allreduce_exit + 10 + rounds * 10.8 + 10), kTol);
  EXPECT_NEAR(result.predicted->predicted_runtime, us(allreduce_exit + 20 + rounds * 10.8), kTol);
  // Everyone but the last waits in the Allreduce for the last: rank 0 from 10 to 10P.
  EXPECT_NEAR(value(result.cube, "wait_at_nxn", "main/MPI_Allreduce", 0),
              us(10.0 * static_cast<double>(p) - 10), kTol);
}

TEST(WhatIf, NonBlockingCollective) {
  // Rank k starts an Iallreduce of 800 bytes at 10(k+1), computes 10 and
  // waits for it: it completes R(L + 0.8 us) after the last start (10P),
  // or when the wait begins if that is later; then 40 of computation.
  const auto p = static_cast<uint64_t>(world_size());
  auto result = what_if("nonblocking_collective", kModel, [p](TestArchive& a, const Regions& r) {
    for (uint32_t k = 0; k < p; ++k) {
      auto& rank = a.rank(k);
      const uint64_t start = 10 * (k + 1);
      rank.enter(at(0), r.main);
      region(rank, r.work, at(0), at(start));
      mpi_call(rank, r.iallreduce, start, start + 1, [&] { rank.nbc_request(at(start), 7); });
      region(rank, r.work, at(start + 1), at(start + 11));
      mpi_call(rank, r.wait, start + 11, 60, [&] {
        rank.nbc_complete(at(60), Collective::kAllreduce, TestArchive::kWorld,
                          TestArchive::kNoRoot, 800, 800, 7);
      });
      rank.leave(at(100), r.main);
    }
  });
  if (world_rank() != 0) return;
  const double rounds = std::ceil(std::log2(static_cast<double>(p)));
  const double done = 10.0 * static_cast<double>(p) + rounds * 10.8;
  for (uint64_t k = 0; k < p; ++k) {
    EXPECT_NEAR(rank_time(result.cube, static_cast<int>(k)),
                us(std::max(10.0 * static_cast<double>(k + 1) + 10, done) + 40), kTol)
        << "rank " << k;
  }
}

TEST(Efficiency, PingPongByHand) {
  // Useful computation: rank 0 240 - 90 (MPI) = 150, rank 1 200 - 11 = 189,
  // others 100. Run time 240. On an ideal network rank 1 answers at 170 and
  // rank 0 ends at 170 + 50 = 220 (rank 1 at 189).
  auto result = analyze_scenario("efficiency", [](TestArchive& a, const Regions& r) { ping_pong(a, r, 1000); });
  if (world_rank() != 0) return;
  const auto efficiency = [&](const std::string& name) {
    return report::find_efficiency(result.efficiencies, name).value_or(-1);
  };
  const double p = world_size();
  const double mean = (150 + 189 + 100 * (p - 2)) / p;
  EXPECT_NEAR(efficiency("load_balance"), mean / 189, 1e-12);
  EXPECT_NEAR(efficiency("communication_efficiency"), 189.0 / 240, 1e-12);
  EXPECT_NEAR(efficiency("serialisation_efficiency"), 189.0 / 220, 1e-12);
  EXPECT_NEAR(efficiency("transfer_efficiency"), 220.0 / 240, 1e-12);
  EXPECT_NEAR(efficiency("parallel_efficiency"), mean / 189 * 189.0 / 240, 1e-12);
  ASSERT_TRUE(result.ideal.has_value());
  EXPECT_NEAR(result.ideal->predicted_runtime, us(220), kTol);
}

TEST(Efficiency, IdealWhatIfHasPerfectTransfer) {
  // The predicted run on the ideal network is its own ideal run.
  auto result = what_if("ideal", "ideal", [](TestArchive& a, const Regions& r) { ping_pong(a, r, 1000); });
  if (world_rank() != 0) return;
  EXPECT_NEAR(result.predicted->predicted_runtime, us(220), kTol);
  EXPECT_NEAR(report::find_efficiency(result.efficiencies, "transfer_efficiency").value_or(-1), 1.0,
              1e-12);
}

TEST(WhatIfModel, Syntax) {
  const auto model = analyzer::parse_machine_model("latency=2.5us,bandwidth=3GB/s,compute=0.5");
  EXPECT_DOUBLE_EQ(model.latency, 2.5e-6);
  EXPECT_DOUBLE_EQ(model.bandwidth, 3e9);
  EXPECT_DOUBLE_EQ(model.compute, 0.5);
  EXPECT_TRUE(std::isinf(analyzer::parse_machine_model("ideal").bandwidth));
  for (const char* bad : {"fast", "latency=5,bandwidth=1GB/s", "latency=5us",
                          "latency=-1us,bandwidth=1GB/s", "latency=5us,bandwidth=1GiB/s",
                          "latency=5us,bandwidth=1GB/s,speed=2", "latency=5us,bandwidth=0B/s",
                          "latency=5us,bandwidth=1GB/s,compute=2x", "latency=5us,latency=5us"}) {
    EXPECT_THROW((void)analyzer::parse_machine_model(bad), UsageError) << bad;
  }
}

TEST(WhatIfModel, CollectiveRounds) {
  using analyzer::CollectiveKind;
  EXPECT_DOUBLE_EQ(analyzer::collective_cost(CollectiveKind::kBarrier, "MPI_Barrier", 8, 0).rounds, 3);
  const auto reduce = analyzer::collective_cost(CollectiveKind::kAllToAll, "MPI_Allreduce", 5, 100);
  EXPECT_DOUBLE_EQ(reduce.rounds, 3);
  EXPECT_DOUBLE_EQ(reduce.bytes, 300);
  const auto alltoall = analyzer::collective_cost(CollectiveKind::kAllToAll, "MPI_Alltoall", 4, 400);
  EXPECT_DOUBLE_EQ(alltoall.rounds, 3);
  EXPECT_DOUBLE_EQ(alltoall.bytes, 300);
}

}  // namespace
}  // namespace orrery::testing

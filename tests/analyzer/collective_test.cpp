// Collective patterns on hand-built traces: every participant's enter and
// exit are chosen so that each formula of docs/design.md §4 gives a distinct value.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <vector>

#include "support/scenario.h"

namespace orrery::testing {
namespace {

constexpr uint64_t U = 1000;
constexpr uint64_t B = 1000000000;
constexpr uint64_t END = B + 1000 * U;
constexpr double kTol = 1e-12;
double us(double n) { return n * 1e-6; }
uint64_t at(uint64_t n) { return B + n * U; }

/// Every rank r runs one blocking collective [enters[r], exits[r]] inside main.
analyzer::AnalysisResult run_collective(const std::string& name, uint32_t Regions::*region,
                                        Collective op, uint32_t root,
                                        const std::vector<uint64_t>& enters,
                                        const std::vector<uint64_t>& exits) {
  return analyze_scenario(name, [&](TestArchive& a, const Regions& r) {
    for (int k = 0; k < world_size(); ++k) {
      auto& rank = a.rank(static_cast<uint32_t>(k));
      const auto ku = static_cast<std::size_t>(k);
      rank.enter(B, r.main);
      rank.enter(at(enters[ku]), r.*region);
      rank.collective_begin(at(enters[ku]));
      rank.collective_end(at(exits[ku]), op, TestArchive::kWorld, root, 8, 8);
      rank.leave(at(exits[ku]), r.*region);
      rank.leave(END, r.main);
    }
  });
}

// Enter times per rank, the latest being rank 3 at 40 (or the last rank).
std::vector<uint64_t> enters() {
  std::vector<uint64_t> e;
  for (int k = 0; k < world_size(); ++k) e.push_back(10 * static_cast<uint64_t>(k + 1));
  return e;
}
std::vector<uint64_t> exits() {
  std::vector<uint64_t> e;
  for (int k = 0; k < world_size(); ++k) e.push_back(100 + static_cast<uint64_t>(k));
  return e;
}

TEST(AnalyzerCollectives, NeighborCollectiveWaitsForInNeighboursOnly) {
  // A ring over all ranks (in-neighbours r-1 and r+1, from the topology file
  // the measurement writes). Rank n/2 arrives last, at 80; it is no
  // in-neighbour of rank 0 (4 or more ranks), whose call lasts until 100 +
  // 0 for the data transfer: wait_at_neighbor counts only until its latest
  // in-neighbour arrived, where N x N would count until 80.
  const auto n = static_cast<uint32_t>(world_size());
  std::vector<uint64_t> enter(n);
  for (uint32_t k = 0; k < n; ++k) enter[k] = k == n / 2 ? 80 : 10 * (k + 1);
  auto result = analyze_scenario("neighbor", [&](TestArchive& a, const Regions& r) {
    std::vector<uint32_t> members;
    for (uint32_t k = 0; k < n; ++k) members.push_back(k);
    const uint32_t ring = a.comm("ring", members);
    const uint32_t neighbor = a.region("MPI_Neighbor_alltoall", "mpi");
    std::filesystem::create_directories(a.directory() + "/topology");
    for (uint32_t k = 0; k < n; ++k) {
      std::ofstream(a.directory() + "/topology/rank-" + std::to_string(k) + ".json")
          << R"({"format": "orrery-topology", "ids": "global", "comms": [{"comm": )" << ring
          << R"(, "in_neighbors": [)" << (k + n - 1) % n << ", " << (k + 1) % n << "]}]}";
      auto& rank = a.rank(k);
      rank.enter(B, r.main);
      rank.enter(at(enter[k]), neighbor);
      rank.collective_begin(at(enter[k]));
      rank.collective_end(at(100 + k), Collective::kAlltoall, ring, TestArchive::kNoRoot, 8, 8);
      rank.leave(at(100 + k), neighbor);
      rank.leave(END, r.main);
    }
  });
  if (world_rank() != 0) return;
  for (uint32_t k = 0; k < n; ++k) {
    const uint64_t latest = std::max(enter[(k + n - 1) % n], enter[(k + 1) % n]);
    const double wait = latest > enter[k] ? us(static_cast<double>(latest - enter[k])) : 0.0;
    const int rank = static_cast<int>(k);
    EXPECT_NEAR(value(result.cube, "wait_at_neighbor", "main/MPI_Neighbor_alltoall", rank), wait,
                kTol) << "rank " << k;
    EXPECT_EQ(value(result.cube, "wait_at_nxn", "main/MPI_Neighbor_alltoall", rank), 0.0);
  }
  if (n >= 4) {  // rank 0 does not wait for the late non-neighbour
    EXPECT_NEAR(value(result.cube, "wait_at_neighbor", "main/MPI_Neighbor_alltoall", 0),
                us(static_cast<double>(enter[n - 1] - enter[0])), kTol);
  }
}

/// MPI_Init [enters[r], 100 + r] at the start and MPI_Finalize
/// [500 + enters[r], 600 + r] at the end of main. `handle_collectives`: each
/// also holds a collective over MPI_COMM_WORLD that creates (destroys) its
/// handle, as later Score-P records them (9.0); without, as earlier Score-P
/// and Orrery do (docs/trace-conventions.md, Scalasca compatibility).
analyzer::AnalysisResult run_init_finalize(const std::string& name, bool handle_collectives) {
  return analyze_scenario(name, [&](TestArchive& a, const Regions& r) {
    const uint32_t init = a.region("MPI_Init", "mpi");
    const uint32_t finalize = a.region("MPI_Finalize", "mpi");
    const auto instance = [&](TestArchive::Rank& rank, uint32_t region, uint64_t enter, uint64_t exit,
                              Collective op) {
      rank.enter(enter, region);
      if (handle_collectives) {
        rank.collective_begin(enter);
        rank.collective_end(exit, op, TestArchive::kWorld, TestArchive::kNoRoot, 0, 0);
      }
      rank.leave(exit, region);
    };
    for (int k = 0; k < world_size(); ++k) {
      auto& rank = a.rank(static_cast<uint32_t>(k));
      const auto ku = static_cast<std::size_t>(k);
      rank.enter(B, r.main);
      instance(rank, init, at(enters()[ku]), at(exits()[ku]), Collective::kCreateHandle);
      region(rank, r.work, at(200), at(500 + enters()[ku]));
      instance(rank, finalize, at(500 + enters()[ku]), at(600 + static_cast<uint64_t>(k)),
               Collective::kDestroyHandle);
      rank.leave(END, r.main);
    }
  });
}

void expect_init_and_finalize_wait_for_the_last_rank(const analyzer::AnalysisResult& result) {
  if (world_rank() != 0) return;
  const double latest = 10.0 * world_size();
  for (int k = 0; k < world_size(); ++k) {
    const double wait = us(latest - 10.0 * (k + 1));
    EXPECT_NEAR(value(result.cube, "init_completion", "main/MPI_Init", k), wait, kTol) << k;
    EXPECT_NEAR(value(result.cube, "finalize_wait", "main/MPI_Finalize", k), wait, kTol) << k;
    // The rest of the call stays Init/Exit time; neither call is a collective.
    EXPECT_NEAR(value(result.cube, "mpi_init_exit", "main/MPI_Init", k),
                us(100.0 + k - 10.0 * (k + 1)) - wait, kTol) << k;
    EXPECT_EQ(value(result.cube, "collectives", "main/MPI_Init", k), 0.0);
    EXPECT_EQ(value(result.cube, "collectives", "main/MPI_Finalize", k), 0.0);
  }
  EXPECT_EQ(result.statistics.collective_mismatches, 0u);
}

TEST(AnalyzerCollectives, InitAndFinalizeWaitForTheLastRank) {
  // No collective events, as Orrery and earlier Score-P write them: both calls
  // wait for the latest rank to arrive.
  expect_init_and_finalize_wait_for_the_last_rank(run_init_finalize("init_finalize", false));
}

TEST(AnalyzerCollectives, HandleCollectivesInsideInitAndFinalizeChangeNothing) {
  // Later Score-P's collectives inside the calls are the calls' own
  // synchronization, not a second collective (nor a lost one).
  const auto with_handles = run_init_finalize("init_finalize_handles", true);
  expect_init_and_finalize_wait_for_the_last_rank(with_handles);
  const auto without = run_init_finalize("init_finalize_plain", false);
  if (world_rank() != 0) return;
  EXPECT_EQ(with_handles.statistics.collectives, without.statistics.collectives);
  EXPECT_GT(without.statistics.collectives, 0u);
}

TEST(AnalyzerCollectives, WaitAtBarrierAndCompletion) {
  auto result = run_collective("barrier", &Regions::barrier, Collective::kBarrier,
                               TestArchive::kNoRoot, enters(), exits());
  if (world_rank() != 0) return;
  const double latest = 10.0 * world_size();
  for (int k = 0; k < world_size(); ++k) {
    EXPECT_NEAR(value(result.cube, "wait_at_barrier", "main/MPI_Barrier", k),
                us(latest - 10.0 * (k + 1)), kTol) << "rank " << k;
    EXPECT_NEAR(value(result.cube, "barrier_completion", "main/MPI_Barrier", k), us(k), kTol);
    EXPECT_EQ(value(result.cube, "collectives", "main/MPI_Barrier", k), 1.0);
  }
}

TEST(AnalyzerCollectives, WaitAtNxNAndCompletion) {
  auto result = run_collective("nxn", &Regions::allreduce, Collective::kAllreduce,
                               TestArchive::kNoRoot, enters(), exits());
  if (world_rank() != 0) return;
  const double latest = 10.0 * world_size();
  for (int k = 0; k < world_size(); ++k) {
    EXPECT_NEAR(value(result.cube, "wait_at_nxn", "main/MPI_Allreduce", k),
                us(latest - 10.0 * (k + 1)), kTol);
    EXPECT_NEAR(value(result.cube, "nxn_completion", "main/MPI_Allreduce", k), us(k), kTol);
    EXPECT_EQ(value(result.cube, "bytes_coll_out", "main/MPI_Allreduce", k), 8.0);
    EXPECT_EQ(value(result.cube, "bytes_coll_in", "main/MPI_Allreduce", k), 8.0);
  }
  EXPECT_EQ(value(result.cube, "wait_at_barrier", "main/MPI_Allreduce", 0), 0.0);
}

TEST(AnalyzerCollectives, LateBroadcastOnNonRoots) {
  const uint32_t root = static_cast<uint32_t>(world_size() - 1);  // enters last, at 10*size
  auto result = run_collective("bcast", &Regions::bcast, Collective::kBcast, root, enters(),
                               exits());
  if (world_rank() != 0) return;
  for (int k = 0; k < world_size(); ++k) {
    const double expected = k == static_cast<int>(root) ? 0.0 : 10.0 * (world_size() - k - 1);
    EXPECT_NEAR(value(result.cube, "late_broadcast", "main/MPI_Bcast", k), us(expected), kTol);
  }
}

TEST(AnalyzerCollectives, EarlyReduceOnRootOnly) {
  auto result = run_collective("reduce", &Regions::reduce, Collective::kReduce, 0, enters(),
                               exits());
  if (world_rank() != 0) return;
  // Root 0 enters at 10 and waits for the latest other (10*size).
  EXPECT_NEAR(value(result.cube, "early_reduce", "main/MPI_Reduce", 0),
              us(10.0 * world_size() - 10), kTol);
  for (int k = 1; k < world_size(); ++k) {
    EXPECT_EQ(value(result.cube, "early_reduce", "main/MPI_Reduce", k), 0.0);
  }
}

TEST(AnalyzerCollectives, EarlyScanWaitsForLowerRanks) {
  // Enters in reverse: rank 0 latest. Rank n waits for max(enters[0..n-1]) = enters[0].
  std::vector<uint64_t> e;
  for (int k = 0; k < world_size(); ++k) e.push_back(10 * static_cast<uint64_t>(world_size() - k));
  auto result = run_collective("scan", &Regions::scan, Collective::kScan, TestArchive::kNoRoot, e,
                               exits());
  if (world_rank() != 0) return;
  EXPECT_EQ(value(result.cube, "early_scan", "main/MPI_Scan", 0), 0.0);
  for (int k = 1; k < world_size(); ++k) {
    EXPECT_NEAR(value(result.cube, "early_scan", "main/MPI_Scan", k),
                us(static_cast<double>(e[0] - e[static_cast<std::size_t>(k)])), kTol);
  }
}

TEST(AnalyzerCollectives, SplitCommunicatorBarrier) {
  if (world_size() < 4) GTEST_SKIP() << "needs 4 ranks";
  auto result = analyze_scenario("split_barrier", [](TestArchive& a, const Regions& r) {
    const uint32_t even = a.comm("even", {0, 2});
    const uint32_t odd = a.comm("odd", {1, 3});
    const uint64_t enter[4] = {10, 20, 50, 70};
    for (uint32_t k = 0; k < 4; ++k) {
      auto& rank = a.rank(k);
      rank.enter(B, r.main);
      rank.enter(at(enter[k]), r.barrier);
      rank.collective_begin(at(enter[k]));
      rank.collective_end(at(80), Collective::kBarrier, k % 2 == 0 ? even : odd,
                          TestArchive::kNoRoot, 0, 0);
      rank.leave(at(80), r.barrier);
      rank.leave(END, r.main);
    }
  });
  if (world_rank() != 0) return;
  EXPECT_NEAR(value(result.cube, "wait_at_barrier", "main/MPI_Barrier", 0), us(40), kTol);
  EXPECT_NEAR(value(result.cube, "wait_at_barrier", "main/MPI_Barrier", 1), us(50), kTol);
  EXPECT_EQ(value(result.cube, "wait_at_barrier", "main/MPI_Barrier", 2), 0.0);
  EXPECT_EQ(value(result.cube, "wait_at_barrier", "main/MPI_Barrier", 3), 0.0);
}

TEST(AnalyzerCollectives, NonBlockingCollectiveFromStartToWait) {
  auto result = analyze_scenario("nbc", [](TestArchive& a, const Regions& r) {
    // Rank 0 starts at 10 and waits from 50; the others start at 60 and
    // wait from 70. Rank 0 is blocked in its wait from 50 to 60.
    for (int k = 0; k < world_size(); ++k) {
      auto& rank = a.rank(static_cast<uint32_t>(k));
      const uint64_t start = k == 0 ? 10 : 60;
      const uint64_t wait = k == 0 ? 50 : 70;
      rank.enter(B, r.main);
      rank.enter(at(start), r.iallreduce);
      rank.nbc_request(at(start), 5);
      rank.leave(at(start + 1), r.iallreduce);
      rank.enter(at(wait), r.wait);
      rank.nbc_complete(at(80), Collective::kAllreduce, TestArchive::kWorld,
                        TestArchive::kNoRoot, 8, 8, 5);
      rank.leave(at(80), r.wait);
      rank.leave(END, r.main);
    }
  });
  if (world_rank() != 0) return;
  EXPECT_NEAR(value(result.cube, "wait_at_nxn", "main/MPI_Wait", 0), us(10), kTol);
  for (int k = 1; k < world_size(); ++k) {
    EXPECT_EQ(value(result.cube, "wait_at_nxn", "main/MPI_Wait", k), 0.0);
  }
  EXPECT_EQ(value(result.cube, "collectives", "main/MPI_Wait", 0), 1.0);
}

}  // namespace
}  // namespace orrery::testing

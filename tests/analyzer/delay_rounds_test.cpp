// The propagation rounds' two paths (analyzer/src/delay_rounds.h): the fused
// pass over the wait states must give the general path's values bit for bit,
// and a rank must take the general path when a delay holds several own wait
// states.

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <string>

#include "delay_rounds.h"
#include "support/scenario.h"

namespace orrery::testing {
namespace {

using analyzer::delay::allow_fused_rounds;
using analyzer::delay::last_rounds_path;
using analyzer::delay::RoundsPath;
using Build = std::function<void(TestArchive&, const Regions&)>;

constexpr uint64_t U = 1000;        // one microsecond in ns
constexpr uint64_t B = 1000000000;  // base time
uint64_t at(uint64_t n) { return B + n * U; }

void recv(TestArchive::Rank& rank, const Regions& r, uint64_t t0, uint64_t t1, uint32_t peer) {
  rank.enter(t0, r.recv);
  rank.recv(t1, peer, TestArchive::kWorld, 0, 8);
  rank.leave(t1, r.recv);
}
void send(TestArchive::Rank& rank, const Regions& r, uint64_t t, uint32_t peer) {
  rank.enter(t, r.send);
  rank.send(t, peer, TestArchive::kWorld, 0, 8);
  rank.leave(t, r.send);
}
void barrier(TestArchive::Rank& rank, const Regions& r, uint64_t t0, uint64_t t1) {
  rank.enter(t0, r.barrier);
  rank.collective_begin(t0);
  rank.collective_end(t1, Collective::kBarrier, TestArchive::kWorld, TestArchive::kNoRoot, 0, 0);
  rank.leave(t1, r.barrier);
}

/// Analyzes `build` with the fused rounds allowed or not; the path this
/// rank took goes to `path`.
analyzer::AnalysisResult analyze(const std::string& name, const Build& build, bool fused,
                                 RoundsPath& path) {
  allow_fused_rounds(fused);
  auto result = analyze_scenario(name, build);
  path = last_rounds_path();
  allow_fused_rounds(true);
  return result;
}

/// Whether two cubes hold the same values, bit for bit.
bool same_values(const report::Cube& a, const report::Cube& b) {
  if (a.values.size() != b.values.size()) return false;
  for (std::size_t m = 0; m < a.values.size(); ++m) {
    if (a.values[m].size() != b.values[m].size()) return false;
    if (!a.values[m].empty() &&
        std::memcmp(a.values[m].data(), b.values[m].data(), a.values[m].size() * sizeof(double)) !=
            0) {
      return false;
    }
  }
  return true;
}

TEST(AnalyzerDelayRounds, FusedPassMatchesTheGeneralPath) {
  // Six iterations of the chain 3 -> 2 -> 1 -> 0 (rank 3 works 40 us, the
  // others 10 us), then rank 0 works 20 us more before a barrier of all
  // ranks: point-to-point shares and the barrier's (rank 0's own wait in
  // its interval), over several rounds.
  if (world_size() < 4) GTEST_SKIP() << "needs 4 ranks";
  const Build build = [](TestArchive& a, const Regions& r) {
    for (uint32_t k = 0; k < 4; ++k) a.rank(k).enter(B, r.main);
    for (uint64_t i = 0; i < 6; ++i) {
      const uint64_t t = 100 * i;
      region(a.rank(3), r.work, at(t), at(t + 40));
      send(a.rank(3), r, at(t + 40), 2);
      for (uint32_t k = 0; k < 3; ++k) {
        region(a.rank(k), r.work, at(t), at(t + 10));
        recv(a.rank(k), r, at(t + 10), at(t + 40), k + 1);
        if (k > 0) send(a.rank(k), r, at(t + 40), k - 1);
      }
      region(a.rank(0), r.work, at(t + 40), at(t + 60));
      barrier(a.rank(0), r, at(t + 60), at(t + 60));
      for (uint32_t k = 1; k < 4; ++k) barrier(a.rank(k), r, at(t + 40), at(t + 60));
    }
    for (uint32_t k = 0; k < 4; ++k) a.rank(k).leave(at(1000), r.main);
  };
  RoundsPath fused_path = RoundsPath::kGeneral, general_path = RoundsPath::kFused;
  const auto fused = analyze("rounds_fused", build, true, fused_path);
  const auto general = analyze("rounds_general", build, false, general_path);
  EXPECT_EQ(fused_path, RoundsPath::kFused);
  EXPECT_EQ(general_path, RoundsPath::kGeneral);
  if (world_rank() != 0) return;
  EXPECT_TRUE(same_values(fused.cube, general.cube));
  // Not an empty comparison: waiting travelled through both kinds of share.
  EXPECT_GT(rank_total(fused.cube, "delay_late_sender_long_term", 3), 0.0);
  EXPECT_GT(rank_total(fused.cube, "delay_barrier_short_term", 0), 0.0);
  EXPECT_GT(rank_total(fused.cube, "wait_propagating", 0), 0.0);
}

TEST(AnalyzerDelayRounds, ADelayerWaitingTwiceInTheIntervalTakesTheGeneralPath) {
  // Rank 1 waits twice for rank 2 (10 us each) before it sends late to rank
  // 0: rank 0's delay holds two own wait states of rank 1.
  if (world_size() < 3) GTEST_SKIP() << "needs 3 ranks";
  const Build build = [](TestArchive& a, const Regions& r) {
    for (uint32_t k = 0; k < 3; ++k) a.rank(k).enter(B, r.main);
    region(a.rank(2), r.work, at(0), at(20));
    send(a.rank(2), r, at(20), 1);
    region(a.rank(2), r.work, at(20), at(40));
    send(a.rank(2), r, at(40), 1);
    region(a.rank(1), r.work, at(0), at(10));
    recv(a.rank(1), r, at(10), at(20), 2);
    region(a.rank(1), r.work, at(20), at(30));
    recv(a.rank(1), r, at(30), at(40), 2);
    send(a.rank(1), r, at(40), 0);
    region(a.rank(0), r.work, at(0), at(10));
    recv(a.rank(0), r, at(10), at(40), 1);
    for (uint32_t k = 0; k < 3; ++k) a.rank(k).leave(at(100), r.main);
  };
  RoundsPath allowed_path = RoundsPath::kFused, general_path = RoundsPath::kFused;
  const auto allowed = analyze("rounds_two_own_waits", build, true, allowed_path);
  const auto general = analyze("rounds_two_own_waits_general", build, false, general_path);
  if (world_rank() == 1) {
    EXPECT_EQ(allowed_path, RoundsPath::kGeneral);
  }
  if (world_rank() != 0) return;
  EXPECT_TRUE(same_values(allowed.cube, general.cube));
  // Rank 0 waits 30 us: 10 us of rank 1's work beyond its own, 20 us rank
  // 1's waiting for rank 2, which lands on rank 2's work as long-term costs.
  constexpr double kTol = 1e-12;
  EXPECT_NEAR(value(allowed.cube, "late_sender", "main/MPI_Recv", 0), 30e-6, kTol);
  EXPECT_NEAR(value(allowed.cube, "delay_late_sender_short_term", "main/work", 1), 10e-6, kTol);
  EXPECT_NEAR(value(allowed.cube, "delay_late_sender_long_term", "main/work", 2), 20e-6, kTol);
  EXPECT_NEAR(value(allowed.cube, "wait_propagating", "main/MPI_Recv", 1), 20e-6, kTol);
}

TEST(AnalyzerDelayRounds, LongWaitsKeepTheirValuesOnTheFusedPath) {
  // The chain 2 -> 1 -> 0 with rank 2 working 5 s: waiting beyond 2^32 ns
  // (the fused pass reads the delays' doubles, nothing narrower).
  if (world_size() < 3) GTEST_SKIP() << "needs 3 ranks";
  constexpr uint64_t kLong = 5000000;  // 5 s in us
  const Build build = [](TestArchive& a, const Regions& r) {
    for (uint32_t k = 0; k < 3; ++k) a.rank(k).enter(B, r.main);
    region(a.rank(2), r.work, at(0), at(kLong));
    send(a.rank(2), r, at(kLong), 1);
    for (uint32_t k = 0; k < 2; ++k) {
      region(a.rank(k), r.work, at(0), at(10));
      recv(a.rank(k), r, at(10), at(kLong), k + 1);
      if (k > 0) send(a.rank(k), r, at(kLong), k - 1);
    }
    for (uint32_t k = 0; k < 3; ++k) a.rank(k).leave(at(kLong + 10), r.main);
  };
  RoundsPath path = RoundsPath::kGeneral;
  const auto result = analyze("rounds_long_waits", build, true, path);
  EXPECT_EQ(path, RoundsPath::kFused);
  if (world_rank() != 0) return;
  const double waiting = static_cast<double>(kLong - 10) * 1e-6;
  constexpr double kTol = 1e-9;
  EXPECT_NEAR(value(result.cube, "late_sender", "main/MPI_Recv", 0), waiting, kTol);
  EXPECT_NEAR(value(result.cube, "delay_late_sender_short_term", "main/work", 2), waiting, kTol);
  EXPECT_NEAR(value(result.cube, "delay_late_sender_long_term", "main/work", 2), waiting, kTol);
}

}  // namespace
}  // namespace orrery::testing

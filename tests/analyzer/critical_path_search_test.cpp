// The critical path's one-pass search for wait points (find_wait_points
// without Late Receivers) against the general merge of every kind of
// candidate: the same path, to the tick, on hand-built traces with what the
// one pass must get right (receives completed out of order, a Waitall
// over two equally late senders, collective waits merged in). The case
// where it must not be used (a send that waited for its receiver) is
// AnalyzerCriticalPath.LateReceiverMovesToTheReceiversPost.
// Part of analyzer_critical_path_test.

#include <gtest/gtest.h>

#include "critical_path_model.h"
#include "critical_path_notes.h"
#include "support/scenario.h"

namespace orrery::testing {
namespace {

namespace cp = orrery::analyzer::critical_path;

constexpr uint64_t U = 1000;        // one microsecond in ns
constexpr uint64_t B = 1000000000;  // base time
uint64_t at(uint64_t n) { return B + n * U; }

void send(TestArchive::Rank& rank, const Regions& r, uint64_t t, uint32_t peer) {
  world_send(rank, r, at(t), peer);
}
void irecv(TestArchive::Rank& rank, const Regions& r, uint64_t t, uint64_t request) {
  rank.enter(at(t), r.irecv);
  rank.irecv_request(at(t), request);
  rank.leave(at(t), r.irecv);
}
void barrier(TestArchive::Rank& rank, const Regions& r, uint64_t enter, uint64_t exit) {
  rank.enter(at(enter), r.barrier);
  rank.collective_begin(at(enter));
  rank.collective_end(at(exit), Collective::kBarrier, TestArchive::kWorld, TestArchive::kNoRoot, 0, 0);
  rank.leave(at(exit), r.barrier);
}

/// Rank 0 posts receives from ranks 1 and 2 and completes them in reverse
/// order (the later posted first: its wait points come out of call order),
/// then sends to rank 1, whose receive waits for it: the path comes back to
/// rank 0 there and must find the wait completed last before the send.
/// Rank 0 also receives once more, waits in a barrier for rank 1, completes
/// two receives from equally late senders in one Waitall, and ends last.
void out_of_order_receives(TestArchive& a, const Regions& r) {
  const int n = world_size();
  auto& r0 = a.rank(0);
  r0.enter(at(0), r.main);
  region(r0, r.work, at(0), at(10));
  irecv(r0, r, 10, 1);
  irecv(r0, r, 11, 2);
  r0.enter(at(12), r.wait);
  r0.irecv(at(50), 2, TestArchive::kWorld, 0, 8, 2);
  r0.leave(at(50), r.wait);
  r0.enter(at(51), r.wait);
  r0.irecv(at(58), 1, TestArchive::kWorld, 0, 8, 1);
  r0.leave(at(58), r.wait);
  send(r0, r, 60, 1);
  r0.enter(at(61), r.recv);
  r0.recv(at(80), 1, TestArchive::kWorld, 0, 8);
  r0.leave(at(80), r.recv);
  barrier(r0, r, 85, 100);
  irecv(r0, r, 101, 3);
  irecv(r0, r, 102, 4);
  r0.enter(at(103), r.waitall);
  r0.irecv(at(120), 1, TestArchive::kWorld, 0, 8, 3);
  r0.irecv(at(120), 2, TestArchive::kWorld, 0, 8, 4);
  r0.leave(at(120), r.waitall);
  region(r0, r.work, at(121), at(190));
  r0.leave(at(200), r.main);
  auto& r1 = a.rank(1);
  r1.enter(at(0), r.main);
  region(r1, r.work, at(0), at(58));
  send(r1, r, 58, 0);
  r1.enter(at(59), r.recv);
  r1.recv(at(60), 0, TestArchive::kWorld, 0, 8);
  r1.leave(at(60), r.recv);
  region(r1, r.work, at(60), at(80));
  send(r1, r, 80, 0);
  barrier(r1, r, 100, 100);  // the last to enter
  region(r1, r.work, at(100), at(120));
  send(r1, r, 120, 0);
  r1.leave(at(150), r.main);
  auto& r2 = a.rank(2);
  r2.enter(at(0), r.main);
  region(r2, r.work, at(0), at(50));
  send(r2, r, 50, 0);
  barrier(r2, r, 95, 100);
  region(r2, r.work, at(100), at(120));
  send(r2, r, 120, 0);
  r2.leave(at(150), r.main);
  for (int k = 3; k < n; ++k) {
    auto& rank = a.rank(static_cast<uint32_t>(k));
    rank.enter(at(0), r.main);
    barrier(rank, r, 20, 100);
    rank.leave(at(110), r.main);
  }
}

TEST(CriticalPathSearch, OnePassFindsThePathTheMergeFinds) {
  if (world_size() < 3) GTEST_SKIP() << "needs 3 ranks";
  const uint64_t merges_before = cp::wait_point_merges();
  const uint64_t searches_before = cp::late_receiver_searches();
  const auto one_pass = analyze_scenario("search_one_pass", out_of_order_receives);
  EXPECT_EQ(cp::wait_point_merges(), merges_before) << "no send waited: the one pass must be taken";
  EXPECT_EQ(cp::late_receiver_searches(), searches_before)
      << "every receive was posted before its send began: no send can have waited";
  cp::set_wait_point_search(cp::WaitPointSearch::kMerge);
  const auto merged = analyze_scenario("search_merged", out_of_order_receives);
  cp::set_wait_point_search(cp::WaitPointSearch::kAuto);
  EXPECT_GT(cp::wait_point_merges(), merges_before);

  EXPECT_EQ(one_pass.critical_path.length, merged.critical_path.length);
  EXPECT_EQ(one_pass.critical_path.hops, merged.critical_path.hops);
  EXPECT_EQ(one_pass.critical_path.looked_ahead, merged.critical_path.looked_ahead);
  EXPECT_EQ(one_pass.critical_path.last_rank, 0u);
  EXPECT_TRUE(one_pass.critical_path.complete);
  EXPECT_GT(one_pass.critical_path.hops, 0u);  // the path left rank 0
  if (world_rank() != 0) return;
  for (const char* metric : {"critical_path", "critical_path_imbalance", "performance_impact"}) {
    for (int k = 0; k < world_size(); ++k) {
      EXPECT_EQ(rank_total(one_pass.cube, metric, k), rank_total(merged.cube, metric, k))
          << metric << " at rank " << k;
    }
  }
  for (const char* path : {"main", "main/work", "main/MPI_Wait", "main/MPI_Waitall", "main/MPI_Send"}) {
    for (int k = 0; k < 3; ++k) {
      EXPECT_EQ(value(one_pass.cube, "critical_path", path, k), value(merged.cube, "critical_path", path, k))
          << path << " at rank " << k;
    }
  }
}

/// Rank 1 sends to rank 0 at 10 (eager: the send returns at once); rank 0
/// posts the receive only at 30 (no Late Sender, and the send did not wait
/// for it: the senders must look, and find no Late Receiver). Rank 1 then
/// waits from 40 for rank 0's send at 60 and ends last: the path moves to
/// rank 0 there.
void eager_send_received_late(TestArchive& a, const Regions& r) {
  auto& r0 = a.rank(0);
  r0.enter(at(0), r.main);
  region(r0, r.work, at(0), at(30));
  r0.enter(at(30), r.recv);
  r0.recv(at(31), 1, TestArchive::kWorld, 0, 8);
  r0.leave(at(31), r.recv);
  region(r0, r.work, at(31), at(60));
  send(r0, r, 60, 1);
  r0.leave(at(100), r.main);
  auto& r1 = a.rank(1);
  r1.enter(at(0), r.main);
  send(r1, r, 10, 0);
  region(r1, r.work, at(10), at(40));
  r1.enter(at(40), r.recv);
  r1.recv(at(61), 0, TestArchive::kWorld, 0, 8);
  r1.leave(at(61), r.recv);
  region(r1, r.work, at(61), at(120));
  r1.leave(at(120), r.main);
  for (int k = 2; k < world_size(); ++k) {
    auto& rank = a.rank(static_cast<uint32_t>(k));
    rank.enter(at(0), r.main);
    region(rank, r.work, at(0), at(50));
    rank.leave(at(50), r.main);
  }
}

TEST(CriticalPathSearch, ReceivePostedAfterItsSendMakesTheSendersLook) {
  const uint64_t merges_before = cp::wait_point_merges();
  const uint64_t searches_before = cp::late_receiver_searches();
  const auto one_pass = analyze_scenario("search_posted_late", eager_send_received_late);
  EXPECT_GT(cp::late_receiver_searches(), searches_before) << "a receive came after its send began";
  EXPECT_EQ(cp::wait_point_merges(), merges_before) << "the eager send did not wait: no merge";
  cp::set_wait_point_search(cp::WaitPointSearch::kMerge);
  const auto merged = analyze_scenario("search_posted_late_merged", eager_send_received_late);
  cp::set_wait_point_search(cp::WaitPointSearch::kAuto);

  EXPECT_EQ(one_pass.critical_path.last_rank, 1u);
  EXPECT_EQ(one_pass.critical_path.hops, 1u);  // from rank 1's receive to rank 0's send
  EXPECT_EQ(one_pass.critical_path.length, merged.critical_path.length);
  EXPECT_EQ(one_pass.critical_path.hops, merged.critical_path.hops);
  if (world_rank() != 0) return;
  for (const char* path : {"main", "main/work", "main/MPI_Recv", "main/MPI_Send"}) {
    for (int k = 0; k < 2; ++k) {
      EXPECT_EQ(value(one_pass.cube, "critical_path", path, k), value(merged.cube, "critical_path", path, k))
          << path << " at rank " << k;
    }
  }
}

/// Microsecond n and an odd part of one: stretches of uneven lengths, whose
/// sums over call paths depend on the order of the additions.
uint64_t odd(uint64_t n) { return at(n) + (n * 7919) % 997; }

/// Two ping-pongs one after the other: ranks 2 and 1 (each computes a
/// different while in `other`, sends, and waits for the other), then rank 2
/// sends to rank 0, which waited since the start, and ranks 0 and 1 do the
/// same; rank 0 ends last. The walk goes back through the second on rank 0,
/// noting rank 1's stretches (its look-ahead comes straight back), moves to
/// rank 2 (whose last wait was for rank 1), and goes through the first on
/// rank 2, noting rank 1's stretches again: rank 1 gets notes from two senders.
void two_ping_pongs(TestArchive& a, const Regions& r) {
  constexpr int kRounds = 40;
  const uint32_t other = a.region("other");
  auto& r0 = a.rank(0);
  auto& r1 = a.rank(1);
  auto& r2 = a.rank(2);
  for (auto* rank : {&r0, &r1, &r2}) rank->enter(odd(0), r.main);
  // A ping-pong of `first` (computes, sends, waits) and rank 1 (waits, computes, sends).
  uint64_t t1 = 0;  // when rank 1 is free
  const auto ping_pong = [&](TestArchive::Rank& first, uint32_t first_rank, uint64_t t, int salt) {
    for (int i = 0; i < kRounds; ++i) {
      const uint64_t own = 3 + static_cast<uint64_t>((i * 5 + salt) % 7);
      const uint64_t ones = 2 + static_cast<uint64_t>((i * 3 + salt) % 5);
      region(first, other, odd(t), odd(t + own));
      t += own;
      world_send(first, r, odd(t), 1);
      world_recv(r1, r, odd(t1), odd(t + 1), first_rank);
      t1 = t + 1;
      region(r1, other, odd(t1), odd(t1 + ones));
      t1 += ones;
      world_send(r1, r, odd(t1), first_rank);
      world_recv(first, r, odd(t + 1), odd(t1 + 1), 1);
      t = t1 + 1;
      t1 += 1;
    }
    return t;
  };
  uint64_t t2 = ping_pong(r2, 2, 0, 0);
  region(r2, other, odd(t2), odd(t2 + 4));
  t2 += 4;
  world_send(r2, r, odd(t2), 0);
  r2.leave(odd(t2 + 1), r.main);
  world_recv(r0, r, odd(0), odd(t2 + 1), 2);
  const uint64_t t0 = ping_pong(r0, 0, t2 + 1, 3);
  r1.leave(odd(t1 + 1), r.main);
  r0.leave(odd(t0 + 100), r.main);
  for (int k = 3; k < world_size(); ++k) region(a.rank(static_cast<uint32_t>(k)), r.main, at(0), at(50));
}

TEST(CriticalPathSearch, NotesInBatchesDuringTheWalkGiveThePathOfOneExchange) {
  if (world_size() < 3) GTEST_SKIP() << "needs 3 ranks";
  const auto at_once = analyze_scenario("notes_at_once", two_ping_pongs);
  const uint64_t batches_before = cp::note_batches_sent();
  cp::set_note_batch(3);
  const auto in_batches = analyze_scenario("notes_in_batches", two_ping_pongs);
  cp::set_note_batch(0);
  // Ranks 0 and 2 walk and note rank 1's stretches, in batches of three.
  if (world_rank() == 0 || world_rank() == 2) {
    EXPECT_GE(cp::note_batches_sent(), batches_before + 10);
  } else {
    EXPECT_EQ(cp::note_batches_sent(), batches_before);
  }
  EXPECT_EQ(in_batches.critical_path.last_rank, 0u);
  EXPECT_GE(in_batches.critical_path.looked_ahead, 150u);  // most of both ping-pongs skipped
  EXPECT_EQ(in_batches.critical_path.length, at_once.critical_path.length);
  EXPECT_EQ(in_batches.critical_path.hops, at_once.critical_path.hops);
  EXPECT_EQ(in_batches.critical_path.looked_ahead, at_once.critical_path.looked_ahead);
  EXPECT_TRUE(in_batches.critical_path.complete);
  if (world_rank() != 0) return;
  for (const char* path : {"main", "main/other", "main/MPI_Recv", "main/MPI_Send"}) {
    for (int k = 0; k < 3; ++k) {
      // Bit for bit: the same additions in the same order.
      EXPECT_EQ(value(in_batches.cube, "critical_path", path, k), value(at_once.cube, "critical_path", path, k))
          << path << " at rank " << k;
    }
  }
  EXPECT_GT(value(in_batches.cube, "critical_path", "main/other", 1), 0.0);
  for (const char* metric : {"critical_path_imbalance", "performance_impact"}) {
    for (int k = 0; k < 3; ++k) {
      EXPECT_EQ(rank_total(in_batches.cube, metric, k), rank_total(at_once.cube, metric, k)) << metric << " " << k;
    }
  }
}

}  // namespace
}  // namespace orrery::testing

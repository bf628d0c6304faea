// The forward replay's hand-over of the delay analysis' point-to-point wait
// states (ReplayOptions::wait_states, forward_wait_states.h) on a ring of
// real message matching: after replay_forward — which corrects the
// clock-condition violations of the ranks' skewed clocks before its walk —
// the handed-over Late Senders and Late Receivers and their
// synchronization points are find_wait_states' own on the corrected times.
// The ring has blocking sends and receives, Sendrecv, a Waitall that
// completes its receives out of posting order, and an Irecv completed
// after a later blocking receive (the receive table out of call order: find_wait_states
// sorts). Without the receivers' posting times the walk collects nothing
// (the delay analysis then searches). Each rank builds its trace with TraceBuilder.

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "delay_model.h"
#include "mpi_world.h"
#include "world_definitions.h"
#include "orrery/analyzer/communicators.h"
#include "orrery/analyzer/message_exchange.h"
#include "orrery/analyzer/replay.h"
#include "orrery/trace/trace_builder.h"

namespace orrery::analyzer {
namespace {

constexpr uint32_t kWorld = 0;
enum Region : uint32_t { kMain, kSend, kRecv, kSendrecv, kIrecv, kIsend, kWaitall, kWait };

/// This rank's program: four exchange shapes with the ring neighbours in
/// turn, random gaps, and odd ranks' clocks 500 ticks behind (their
/// receives complete before the sends began: corrections).
void build_ring(LocalTrace& trace, uint32_t me, uint32_t n) {
  const uint32_t right = (me + 1) % n, left = (me + n - 1) % n;
  std::mt19937 random(77 + me);
  std::uniform_int_distribution<int64_t> gap(1, 300);
  TraceBuilder b(trace);
  int64_t t = me % 2 == 1 ? 500 : 1000;
  const auto next = [&] { return t += gap(random); };
  uint64_t request = 1;
  b.enter(next(), kMain);
  for (uint32_t i = 0; i < 80; ++i) {
    const uint32_t tag = i % 2;
    switch (i % 4) {
      case 0:
        b.enter(next(), kSend), b.send(next(), right, kWorld, tag, 64), b.leave(next(), kSend);
        b.enter(next(), kRecv), b.recv(next(), left, kWorld, tag, 64), b.leave(next(), kRecv);
        break;
      case 1:
        b.enter(next(), kSendrecv);
        b.send(next(), right, kWorld, tag, 64);
        b.recv(next(), left, kWorld, tag, 64);
        b.leave(next(), kSendrecv);
        break;
      case 2: {  // a Waitall completing the second Irecv first
        const uint64_t r1 = request++, r2 = request++, s = request++;
        b.enter(next(), kIrecv), b.irecv_request(next(), r1), b.leave(next(), kIrecv);
        b.enter(next(), kIrecv), b.irecv_request(next(), r2), b.leave(next(), kIrecv);
        b.enter(next(), kIsend), b.isend(next(), right, kWorld, tag, 64, s), b.leave(next(), kIsend);
        b.enter(next(), kIsend), b.isend(next(), left, kWorld, tag, 64, request), b.leave(next(), kIsend);
        b.enter(next(), kWaitall);
        b.irecv(next(), right, kWorld, tag, 64, r2);
        b.isend_complete(next(), s);
        b.irecv(next(), left, kWorld, tag, 64, r1);
        b.isend_complete(next(), request++);
        b.leave(next(), kWaitall);
        break;
      }
      default: {  // an Irecv completed after a later blocking receive
        const uint64_t r = request++;
        b.enter(next(), kIrecv), b.irecv_request(next(), r), b.leave(next(), kIrecv);
        b.enter(next(), kSend), b.send(next(), right, kWorld, tag + 2, 64), b.leave(next(), kSend);
        b.enter(next(), kSend), b.send(next(), left, kWorld, tag + 2, 64), b.leave(next(), kSend);
        b.enter(next(), kRecv), b.recv(next(), right, kWorld, tag + 2, 64), b.leave(next(), kRecv);
        b.enter(next(), kWait), b.irecv(next(), left, kWorld, tag + 2, 64, r), b.leave(next(), kWait);
        break;
      }
    }
  }
  b.leave(next(), kMain);
  b.finish();
}

struct Ring {
  Ring() : me(testing::world_rank_u32()), n(testing::world_size_u32()) {
    definitions = testing::world_definitions(n, kWorld);
    trace.rank = me;
    build_ring(trace, me, n);
    comms = std::make_unique<Communicators>(definitions, me, MPI_COMM_WORLD);
    std::string error;
    matching = MessageMatching::build(trace, definitions, *comms, MPI_COMM_WORLD, error);
    EXPECT_EQ(error, "");
  }
  uint32_t me, n;
  Definitions definitions;
  LocalTrace trace;
  std::unique_ptr<Communicators> comms;
  MessageMatching matching;
};

uint64_t sum_over_ranks(uint64_t value) {
  uint64_t sum = 0;
  MPI_Allreduce(&value, &sum, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  return sum;
}

TEST(ForwardWaitStates, HandedOverAreFindWaitStatesOwnOnTheCorrectedTimes) {
  Ring ring;
  delay::HandedWaitStates handed;
  ReplayOptions options;  // corrects the clock violations before the walk
  options.raise_sends_completed = true;
  options.wait_states = &handed;
  options.definitions = &ring.definitions;
  const EventBus bus;
  ReplayStatistics statistics;
  replay_forward(ring.trace, ring.matching, MPI_COMM_WORLD, bus, options, statistics);
  ASSERT_TRUE(ring.trace.recv_post_enters_known);
  EXPECT_GT(sum_over_ranks(statistics.clock_violations), 0u) << "the skewed clocks were corrected";
  ASSERT_TRUE(handed.complete);

  std::vector<std::pair<uint32_t, uint32_t>> syncs;
  const std::vector<delay::WaitState> found =
      delay::find_wait_states(ring.trace, ring.definitions, ring.trace.recv_post_enters, syncs);
  ASSERT_EQ(handed.waits.size(), found.size());
  EXPECT_EQ(handed.syncs, syncs);
  uint64_t late_senders = 0, late_receivers = 0;
  for (std::size_t k = 0; k < found.size(); ++k) {
    EXPECT_EQ(handed.waits[k].kind, found[k].kind) << k;
    EXPECT_EQ(handed.waits[k].callpath(), found[k].callpath()) << k;
    EXPECT_EQ(handed.waits[k].call, found[k].call) << k;
    EXPECT_EQ(handed.waits[k].waiting, found[k].waiting) << k;
    EXPECT_EQ(handed.waits[k].op, found[k].op) << k;
    EXPECT_EQ(handed.waits[k].delayer, found[k].delayer) << k;
    (found[k].kind == WaitKind::kLateSender ? late_senders : late_receivers) += 1;
  }
  // The shapes the comparison must cover were there.
  EXPECT_GT(sum_over_ranks(late_senders), 20u * ring.n);
  EXPECT_GT(sum_over_ranks(late_receivers), 5u * ring.n);
  std::vector<std::pair<uint32_t, uint32_t>> unused;
  std::vector<delay::WaitState> in_call_order;
  EXPECT_FALSE(delay::find_wait_states_in_call_order(ring.trace, ring.definitions,
                                                     ring.trace.recv_post_enters, in_call_order, unused))
      << "the receive table is out of call order (find_wait_states sorted)";
}

TEST(ForwardWaitStates, NothingHandedOverWithoutTheReceiversPostingTimes) {
  Ring ring;
  delay::HandedWaitStates handed;
  handed.complete = true;  // left over: must not survive
  handed.waits.resize(3);
  ReplayOptions options;
  options.raise_sends_completed = false;  // the Late Receivers' times are not there
  options.wait_states = &handed;
  options.definitions = &ring.definitions;
  const EventBus bus;
  ReplayStatistics statistics;
  replay_forward(ring.trace, ring.matching, MPI_COMM_WORLD, bus, options, statistics);
  EXPECT_FALSE(handed.complete);
  EXPECT_TRUE(handed.waits.empty());
}

}  // namespace
}  // namespace orrery::analyzer

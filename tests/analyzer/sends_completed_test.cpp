// The forward walk's SendsCompleted (ReplayOptions::raise_sends_completed,
// what the analysis uses) against replay_backward's, the reference: the same
// events, and per call path in the same order. Each rank builds its trace
// with TraceBuilder: a ring of blocking sends and receives, Sendrecv (a call
// that completes a send and a receive), Isends completed in a Waitall with
// Irecvs, an Irecv waited for after a send, and sends inside a user region,
// with times that make some sends wait for late receivers.

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "mpi_world.h"
#include "world_definitions.h"
#include "orrery/analyzer/communicators.h"
#include "orrery/analyzer/message_exchange.h"
#include "orrery/analyzer/replay.h"
#include "orrery/replay/replay_events.h"
#include "orrery/trace/trace_builder.h"

namespace orrery::analyzer {
namespace {

constexpr uint32_t kWorld = 0;
enum Region : uint32_t { kMain, kWork, kSend, kRecv, kSendrecv, kIsend, kIrecv, kWaitall, kWait };

uint32_t world_size() { return testing::world_size_u32(); }
uint32_t world_rank() { return testing::world_rank_u32(); }

/// This rank's program: every iteration one of five exchange shapes with
/// the ring neighbours (each rank runs the same shapes, so every message is
/// matched), with gaps drawn per rank so that senders and receivers are late
/// in turn.
void build_trace(LocalTrace& trace, uint32_t me, uint32_t n) {
  const uint32_t right = (me + 1) % n, left = (me + n - 1) % n;
  std::mt19937 random(1234 + me);
  std::uniform_int_distribution<int64_t> gap(1, 400);
  TraceBuilder b(trace);
  int64_t t = 1000;
  const auto next = [&] { return t += gap(random); };
  uint64_t request = 1;
  b.enter(next(), kMain);
  for (uint32_t i = 0; i < 60; ++i) {
    const uint32_t tag = i % 3;
    switch (i % 5) {
      case 0:  // blocking send, then blocking receive
        b.enter(next(), kSend), b.send(next(), right, kWorld, tag, 64), b.leave(next(), kSend);
        b.enter(next(), kRecv), b.recv(next(), left, kWorld, tag, 64), b.leave(next(), kRecv);
        break;
      case 1:  // one call completes a send and a receive
        b.enter(next(), kSendrecv);
        b.send(next(), right, kWorld, tag, 64);
        b.recv(next(), left, kWorld, tag, 64);
        b.leave(next(), kSendrecv);
        break;
      case 2: {  // two Isends and two Irecvs, all completed by one Waitall
        const uint64_t s1 = request++, s2 = request++, r1 = request++, r2 = request++;
        b.enter(next(), kIrecv), b.irecv_request(next(), r1), b.leave(next(), kIrecv);
        b.enter(next(), kIrecv), b.irecv_request(next(), r2), b.leave(next(), kIrecv);
        b.enter(next(), kIsend), b.isend(next(), right, kWorld, tag, 64, s1), b.leave(next(), kIsend);
        b.enter(next(), kIsend), b.isend(next(), left, kWorld, tag, 64, s2), b.leave(next(), kIsend);
        b.enter(next(), kWaitall);
        b.isend_complete(next(), s1);
        b.irecv(next(), left, kWorld, tag, 64, r1);
        b.isend_complete(next(), s2);
        b.irecv(next(), right, kWorld, tag, 64, r2);
        b.leave(next(), kWaitall);
        break;
      }
      case 3: {  // Irecv posted, a blocking send, then the Wait
        const uint64_t r = request++;
        b.enter(next(), kIrecv), b.irecv_request(next(), r), b.leave(next(), kIrecv);
        b.enter(next(), kSend), b.send(next(), right, kWorld, tag, 64), b.leave(next(), kSend);
        b.enter(next(), kWait), b.irecv(next(), left, kWorld, tag, 64, r), b.leave(next(), kWait);
        break;
      }
      default:  // sends inside a user region, receives outside it
        b.enter(next(), kWork);
        b.enter(next(), kSend), b.send(next(), right, kWorld, tag, 64), b.leave(next(), kSend);
        b.enter(next(), kSend), b.send(next(), left, kWorld, tag, 64), b.leave(next(), kSend);
        b.leave(next(), kWork);
        b.enter(next(), kRecv), b.recv(next(), left, kWorld, tag, 64), b.leave(next(), kRecv);
        b.enter(next(), kRecv), b.recv(next(), right, kWorld, tag, 64), b.leave(next(), kRecv);
        break;
    }
  }
  b.leave(next(), kMain);
  b.finish();
}

using Seen = std::tuple<uint32_t, int64_t, int64_t, int64_t, uint32_t, int64_t>;

Seen seen(const SendsCompleted& e) {
  return {e.call.callpath, e.call.enter, e.call.exit, e.latest_recv_enter, e.messages, e.latest_send_enter};
}

/// The events of one call path, in the order they came.
std::vector<Seen> of_callpath(const std::vector<Seen>& events, uint32_t callpath) {
  std::vector<Seen> picked;
  for (const Seen& e : events) {
    if (std::get<0>(e) == callpath) picked.push_back(e);
  }
  return picked;
}

TEST(SendsCompleted, ForwardWalkRaisesWhatTheBackwardReplayRaises) {
  const uint32_t n = world_size(), me = world_rank();
  const Definitions definitions = testing::world_definitions(n, kWorld);
  LocalTrace trace;
  trace.rank = me;
  build_trace(trace, me, n);
  const Communicators comms(definitions, me, MPI_COMM_WORLD);
  std::string error;
  const MessageMatching matching = MessageMatching::build(trace, definitions, comms, MPI_COMM_WORLD, error);
  ASSERT_EQ(error, "");

  std::vector<Seen> forward, backward, plain;
  EventBus with_sends, reference, without_sends;
  with_sends.subscribe<SendsCompleted>([&](const SendsCompleted& e) { forward.push_back(seen(e)); });
  reference.subscribe<SendsCompleted>([&](const SendsCompleted& e) { backward.push_back(seen(e)); });
  without_sends.subscribe<SendsCompleted>([&](const SendsCompleted& e) { plain.push_back(seen(e)); });
  ReplayStatistics statistics;
  ReplayOptions options;
  options.correct_clock_violations = false;
  replay_forward(trace, matching, MPI_COMM_WORLD, without_sends, options, statistics);
  EXPECT_TRUE(plain.empty()) << "only with raise_sends_completed";
  options.raise_sends_completed = true;
  replay_forward(trace, matching, MPI_COMM_WORLD, with_sends, options, statistics);
  replay_backward(trace, matching, MPI_COMM_WORLD, reference);

  // Blocking sends, Sendrecv, Waitall and sends in the user region's calls.
  ASSERT_GE(backward.size(), 60U);
  const auto waited_for_receiver = std::count_if(backward.begin(), backward.end(), [](const Seen& e) {
    return std::get<2>(e) > std::get<3>(e) && std::get<3>(e) > std::get<1>(e);
  });
  EXPECT_GT(waited_for_receiver, 0) << "some sends wait for a late receiver";
  EXPECT_TRUE(std::any_of(backward.begin(), backward.end(),
                          [](const Seen& e) { return std::get<4>(e) == 2; }))
      << "the Waitall completes two sends";
  EXPECT_TRUE(std::any_of(backward.begin(), backward.end(),
                          [](const Seen& e) { return std::get<5>(e) != INT64_MIN; }))
      << "calls that also completed receives";
  for (uint32_t callpath = 0; callpath < trace.calltree.size(); ++callpath) {
    EXPECT_EQ(of_callpath(forward, callpath), of_callpath(backward, callpath)) << "call path " << callpath;
  }
  std::sort(forward.begin(), forward.end());
  std::sort(backward.begin(), backward.end());
  EXPECT_EQ(forward, backward);
}

}  // namespace
}  // namespace orrery::analyzer

// The forward walk's frames (replay_forward.cpp): a sentinel below the
// outermost region instance takes what happens outside any region, so
// messages sent or received there must not reach the patterns (no
// MessageReceived, no counts, no ReceivesCompleted), while the same messages
// inside regions do, and a region nesting deeper than the walk's first
// frames grows them. The walk's counts per call path grow too when the
// call tree does not know a call path, with frames pointing at them open.
// A blocking receive's posting time is its own call's enter (taken from the
// frame); a non-blocking one's is its MPI_Irecv's (looked up).
// Each rank builds a ring with TraceBuilder.

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <map>
#include <tuple>
#include <string>
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
constexpr uint32_t kIterations = 10;
constexpr uint32_t kDepth = 200;  // nested user regions: more than the walk's first frames
enum Region : uint32_t { kMain, kSend, kRecv, kNested };

void build(LocalTrace& trace, uint32_t me, uint32_t n) {
  const uint32_t right = (me + 1) % n, left = (me + n - 1) % n;
  TraceBuilder b(trace);
  int64_t t = 1000;
  b.send(t += 10, right, kWorld, 7, 16);  // loose: outside any region
  b.recv(t += 10, left, kWorld, 7, 16);
  b.enter(t += 10, kMain);
  for (uint32_t d = 0; d < kDepth; ++d) b.enter(t += 1, kNested + d);
  for (uint32_t i = 0; i < kIterations; ++i) {
    b.enter(t += 10, kSend), b.send(t += 10, right, kWorld, 0, 8), b.leave(t += 10, kSend);
    b.enter(t += 10, kRecv), b.recv(t += 10, left, kWorld, 0, 8), b.leave(t += 10, kRecv);
  }
  for (uint32_t d = kDepth; d-- > 0;) b.leave(t += 1, kNested + d);
  b.leave(t += 10, kMain);
  b.send(t += 10, right, kWorld, 8, 16);  // loose again, after the last region
  b.recv(t += 10, left, kWorld, 8, 16);
  b.finish();
}

/// Matches the messages of this rank's `trace` and walks it forward, raising
/// the events on `bus`; returns the receives matched.
uint64_t match_and_walk(LocalTrace& trace, const EventBus& bus, bool raise_sends_completed) {
  const uint32_t n = testing::world_size_u32(), me = testing::world_rank_u32();
  const Definitions definitions = testing::world_definitions(n, kWorld);
  const Communicators comms(definitions, me, MPI_COMM_WORLD);
  std::string error;
  const MessageMatching matching = MessageMatching::build(trace, definitions, comms, MPI_COMM_WORLD, error);
  EXPECT_EQ(error, "");
  ReplayOptions options;
  options.correct_clock_violations = false;
  options.raise_sends_completed = raise_sends_completed;
  ReplayStatistics statistics;
  replay_forward(trace, matching, MPI_COMM_WORLD, bus, options, statistics);
  return matching.matched_recvs();
}

TEST(ForwardWalk, MessagesOutsideAnyRegionReachNoPattern) {
  LocalTrace trace;
  trace.rank = testing::world_rank_u32();
  build(trace, trace.rank, testing::world_size_u32());
  ASSERT_EQ(trace.loose_events, 4u);

  EventBus bus;
  std::vector<MessageReceived> received;
  uint64_t receiving_calls = 0, sending_calls = 0, exits = 0, sends = 0, receives = 0, visits = 0;
  bus.subscribe<MessageReceived>([&](const MessageReceived& e) { received.push_back(e); });
  bus.subscribe<ReceivesCompleted>([&](const ReceivesCompleted&) { ++receiving_calls; });
  bus.subscribe<SendsCompleted>([&](const SendsCompleted&) { ++sending_calls; });
  bus.subscribe<RegionExited>([&](const RegionExited& e) {
    ++exits;
    EXPECT_NE(e.call.callpath, kNone);
  });
  bus.subscribe<CallPathCounts>([&](const CallPathCounts& e) {
    sends += e.sends;
    receives += e.receives;
    visits += e.visits;
  });
  ASSERT_EQ(match_and_walk(trace, bus, true), kIterations + 2) << "the loose messages are matched too";

  ASSERT_EQ(received.size(), kIterations);
  const uint32_t recv_callpath = received.front().callpath;
  for (const MessageReceived& e : received) {
    EXPECT_EQ(e.callpath, recv_callpath);
    EXPECT_EQ(e.post_enter, e.call_enter) << "a blocking receive is posted by its own call";
  }
  EXPECT_NE(recv_callpath, kNone);
  EXPECT_EQ(receiving_calls, kIterations);
  EXPECT_EQ(sending_calls, kIterations);
  EXPECT_EQ(sends, kIterations);
  EXPECT_EQ(receives, kIterations);
  EXPECT_EQ(exits, 2 * kIterations + kDepth + 1);
  EXPECT_EQ(visits, exits);
}

TEST(ForwardWalk, NonBlockingReceivesArePostedByTheirIrecv) {
  const uint32_t n = testing::world_size_u32(), me = testing::world_rank_u32();
  LocalTrace trace;
  trace.rank = me;
  {
    const uint32_t right = (me + 1) % n, left = (me + n - 1) % n;
    TraceBuilder b(trace);
    b.enter(1000, kMain);
    b.enter(1010, kRecv), b.irecv_request(1015, 42), b.leave(1020, kRecv);  // posted at 1010
    b.enter(1030, kSend), b.send(1035, right, kWorld, 0, 8), b.leave(1040, kSend);
    b.enter(1050, kNested), b.irecv(1055, left, kWorld, 0, 8, 42), b.leave(1060, kNested);  // the wait
    b.enter(1070, kRecv), b.recv(1075, left, kWorld, 1, 8), b.leave(1080, kRecv);  // blocking
    b.enter(1090, kSend), b.send(1095, right, kWorld, 1, 8), b.leave(1100, kSend);
    b.leave(1110, kMain);
    b.finish();
  }
  EventBus bus;
  std::vector<MessageReceived> received;
  bus.subscribe<MessageReceived>([&](const MessageReceived& e) { received.push_back(e); });
  ASSERT_EQ(match_and_walk(trace, bus, false), 2u);
  ASSERT_EQ(received.size(), 2u);
  EXPECT_EQ(received[0].call_enter, 1050);
  EXPECT_EQ(received[0].post_enter, 1010) << "posted by the MPI_Irecv, not by the wait";
  EXPECT_EQ(received[1].call_enter, 1070);
  EXPECT_EQ(received[1].post_enter, 1070);
}

/// Per call path: visits, sends, bytes sent, receives, bytes received.
using CountsByCallpath = std::map<uint32_t, std::tuple<uint64_t, uint64_t, uint64_t, uint64_t, uint64_t>>;

CountsByCallpath walk_counts(bool forget_call_tree) {
  LocalTrace trace;
  trace.rank = testing::world_rank_u32();
  build(trace, trace.rank, testing::world_size_u32());
  if (forget_call_tree) {
    trace.calltree = CallTree{};  // the walk sizes its counts by these two
    trace.folded.clear();
  }
  EventBus bus;
  CountsByCallpath counts;
  bus.subscribe<CallPathCounts>([&](const CallPathCounts& e) {
    EXPECT_EQ(counts.count(e.callpath), 0u) << "one CallPathCounts per call path";
    counts[e.callpath] = {e.visits, e.sends, e.bytes_sent, e.receives, e.bytes_received};
  });
  match_and_walk(trace, bus, false);
  return counts;
}

TEST(ForwardWalk, CountsGrowForCallPathsTheCallTreeDoesNotKnow) {
  const CountsByCallpath known = walk_counts(false);
  const CountsByCallpath grown = walk_counts(true);
  ASSERT_EQ(known.size(), kDepth + 3) << "main, the nested regions, the send and the receive call";
  EXPECT_EQ(grown, known);
  uint64_t sends = 0, receives = 0;
  for (const auto& [callpath, values] : known) {
    sends += std::get<1>(values);
    receives += std::get<3>(values);
  }
  EXPECT_EQ(sends, kIterations) << "the loose messages count nowhere";
  EXPECT_EQ(receives, kIterations);
}

}  // namespace
}  // namespace orrery::analyzer

// The reading fast paths: the TraceBuilder's cache of call-path lookups, its
// folded spans on demand, the message times it records, the chunk-at-a-time
// walk of a ChunkedArray and the EventBus's publishers. Plain unit tests, no MPI.

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "orrery/replay/event_bus.h"
#include "orrery/trace/chunked_array.h"
#include "orrery/trace/trace_builder.h"

namespace orrery::analyzer {
namespace {

TEST(TraceBuilder, CallPathsStayTheCallTreesWhenTheLookupCacheOverflows) {
  // 3,000 parents, each calling the same region and one of its own, all
  // twice: far more (parent, region) pairs than the builder's cache holds,
  // and many with the same region, so entries are evicted and looked up
  // again. Every Enter must still name the one call path of its pair, and
  // no pair may get a second call path.
  constexpr uint32_t kParents = 3000;
  constexpr uint32_t kShared = 1;
  LocalTrace trace;
  TraceBuilder builder(trace);
  int64_t t = 0;
  builder.enter(t++, 0);
  for (int round = 0; round < 2; ++round) {
    for (uint32_t parent = 0; parent < kParents; ++parent) {
      builder.enter(t++, 10 + parent);
      for (uint32_t callee : {kShared, 10 + kParents + parent}) {
        builder.enter(t++, callee);
        builder.send(t++, 1, 0, 0, 8);  // keeps the instances, so their Enters are read back
        builder.leave(t++, callee);
      }
      builder.leave(t++, 10 + parent);
    }
  }
  builder.leave(t++, 0);
  builder.finish();
  EXPECT_EQ(trace.calltree.size(), 1u + 3u * kParents);
  const uint32_t root = trace.calltree.find(kNone, 0);
  std::vector<uint32_t> stack;
  std::size_t enters = 0;
  for (std::size_t i = 0; i < trace.events.size(); ++i) {
    const Event& event = trace.events[i];
    if (event.kind() == EventKind::kEnter) {
      const uint32_t callpath = event.ref();
      const CallPathNode& node = trace.calltree.nodes()[callpath];
      EXPECT_EQ(trace.calltree.find(node.parent, node.region), callpath);
      EXPECT_EQ(node.parent, stack.empty() ? kNone : stack.back());
      stack.push_back(callpath);
      ++enters;
    } else if (event.kind() == EventKind::kLeave) {
      stack.pop_back();
    }
  }
  EXPECT_EQ(enters, 1u + 2u * 3u * kParents);
  EXPECT_EQ(trace.events[0].ref(), root);
}

/// main { compute { kernel } MPI_Send { send } compute }, read with or
/// without folded spans.
LocalTrace read_small_trace(bool keep_folded_spans) {
  LocalTrace trace;
  trace.keep_folded_spans = keep_folded_spans;
  TraceBuilder builder(trace);
  builder.enter(0, 1);
  builder.enter(10, 2);
  builder.enter(12, 3);
  builder.leave(17, 3);
  builder.leave(20, 2);
  builder.enter(20, 4);
  builder.send(21, 1, 0, 0, 8);
  builder.leave(22, 4);
  builder.enter(30, 2);
  builder.leave(34, 2);
  builder.leave(40, 1);
  builder.finish();
  return trace;
}

TEST(TraceBuilder, FoldedSpansOnlyWhenAskedForWithTheSameTotals) {
  const LocalTrace with = read_small_trace(true);
  const LocalTrace without = read_small_trace(false);
  EXPECT_EQ(with.folded_spans.size(), 3u);  // compute and kernel before MPI_Send, compute after
  EXPECT_TRUE(without.folded_spans.empty());
  ASSERT_EQ(with.folded.size(), without.folded.size());
  for (std::size_t callpath = 0; callpath < with.folded.size(); ++callpath) {
    EXPECT_EQ(with.folded[callpath].visits, without.folded[callpath].visits);
    EXPECT_EQ(with.folded[callpath].exclusive, without.folded[callpath].exclusive);
  }
  ASSERT_EQ(with.events.size(), without.events.size());
  for (std::size_t i = 0; i < with.events.size(); ++i) {
    EXPECT_EQ(with.events[i].time, without.events[i].time);
    EXPECT_EQ(with.events[i].kind_and_ref, without.events[i].kind_and_ref);
    EXPECT_EQ(with.events[i].link, without.events[i].link);
  }
  EXPECT_EQ(with.folded_child_time, without.folded_child_time);
}

TEST(TraceBuilder, RecordsEachMessagesTimesAsTheEventsHoldThem) {
  // LocalTrace::send_post_times and recv_times against the events the
  // clock condition would otherwise look up: the posting call's Enter (the
  // post itself outside any call) and the completion, for every way a
  // message is read: blocking, Isend + completion, Irecv request + Irecv, an
  // Irecv without a recorded request, a cancelled and a never completed
  // request, sends and receives outside any region, and a clock that steps
  // back (the builder clamps it: the recorded times must be the clamped ones).
  enum Region : uint32_t { kMain, kSend, kRecv, kIsend, kIrecv, kWait };
  LocalTrace trace;
  TraceBuilder b(trace);
  int64_t t = 100;
  b.send(t += 3, 1, 0, 0, 8);  // outside any region
  b.recv(t += 3, 1, 0, 0, 8);
  b.enter(t += 5, kMain);
  constexpr uint64_t kIterations = 66000;  // more than a chunk of every table
  for (uint64_t i = 0; i < kIterations; ++i) {
    const uint64_t request = 10 * i;
    b.enter(t += 7, kSend), b.send(t += 2, 1, 0, 1, 8), b.leave(t += 4, kSend);
    b.enter(t += 7, kRecv), b.recv(t -= 3, 1, 0, 1, 8), b.leave(t += 9, kRecv);  // steps back
    b.enter(t += 1, kIrecv), b.irecv_request(t += 1, request), b.leave(t += 1, kIrecv);
    b.enter(t += 1, kIsend), b.isend(t += 1, 1, 0, 2, 8, request + 1), b.leave(t += 1, kIsend);
    b.enter(t += 1, kIrecv), b.irecv_request(t += 1, request + 2), b.leave(t += 1, kIrecv);
    b.enter(t += 1, kIrecv), b.irecv_request(t += 1, request + 3), b.leave(t += 1, kIrecv);
    b.request_cancelled(request + 2);
    b.enter(t += 6, kWait);
    b.irecv(t += 2, 1, 0, 2, 8, request);
    b.isend_complete(t += 2, request + 1);
    b.irecv(t += 2, 1, 0, 3, 8, request + 7);  // no request recorded: posted here
    b.leave(t += 2, kWait);
    // request + 3 never completes
  }
  b.leave(t += 5, kMain);
  b.finish();
  ASSERT_EQ(trace.send_post_times.size(), trace.sends.size());
  ASSERT_EQ(trace.recv_times.size(), trace.recvs.size());
  ASSERT_GT(trace.sends.size(), decltype(trace.send_post_times)::kChunkSize);
  ASSERT_GT(trace.recvs.size(), decltype(trace.recv_times)::kChunkSize);
  for (std::size_t s = 0; s < trace.sends.size(); ++s) {
    ASSERT_EQ(trace.send_post_times[s], trace.events[posting_call(trace.sends[s])].time) << "send " << s;
  }
  std::size_t cancelled = 0, open = 0;
  for (std::size_t r = 0; r < trace.recvs.size(); ++r) {
    const MessageOp& op = trace.recvs[r];
    ASSERT_EQ(trace.recv_times[r].post, trace.events[posting_call(op)].time) << "receive " << r;
    const int64_t completion =
        op.cancelled || op.complete_event == kNone ? kNoValue : trace.events[op.complete_event].time;
    ASSERT_EQ(trace.recv_times[r].completion, completion) << "receive " << r;
    cancelled += op.cancelled ? 1 : 0;
    open += !op.cancelled && op.complete_event == kNone ? 1 : 0;
  }
  EXPECT_EQ(cancelled, kIterations);
  EXPECT_EQ(open, kIterations);
}

TEST(ChunkedArray, ForEachVisitsEveryEntryOnceInOrderAcrossChunks) {
  for (uint32_t count : {0U, 1U, 4U, 5U, 11U}) {
    ChunkedArray<uint32_t, 2> values;  // chunks of 4
    for (uint32_t v = 0; v < count; ++v) values.push_back(100 + v);
    std::vector<uint32_t> indices, seen;
    values.for_each([&](uint32_t index, uint32_t value) {
      indices.push_back(index);
      seen.push_back(value);
    });
    ASSERT_EQ(seen.size(), count);
    for (uint32_t v = 0; v < count; ++v) {
      EXPECT_EQ(indices[v], v);
      EXPECT_EQ(seen[v], 100 + v);
    }
  }
}

TEST(ChunkedArray, ForEachChunkHandsOutEveryEntryOnceInOrder) {
  for (uint32_t count : {0U, 1U, 4U, 5U, 11U}) {
    ChunkedArray<uint32_t, 2> values;  // chunks of 4
    for (uint32_t v = 0; v < count; ++v) values.push_back(100 + v);
    std::vector<uint32_t> seen;
    std::size_t calls = 0;
    values.for_each_chunk([&](std::size_t first, const uint32_t* entries, std::size_t n) {
      EXPECT_EQ(first, seen.size());
      EXPECT_LE(n, 4U);
      ++calls;
      seen.insert(seen.end(), entries, entries + n);
    });
    EXPECT_EQ(calls, (count + 3) / 4);
    ASSERT_EQ(seen.size(), count);
    for (uint32_t v = 0; v < count; ++v) EXPECT_EQ(seen[v], 100 + v);
  }
}

// The write cursor: truncating back over a chunk boundary and appending
// again puts each entry at its index; a moved-from array is empty and usable.
TEST(ChunkedArray, AppendsAfterTruncatingAcrossChunksAndAfterAMove) {
  ChunkedArray<uint32_t, 2> values;  // chunks of 4
  for (uint32_t v = 0; v < 9; ++v) EXPECT_EQ(values.push_back(v), v);
  for (std::size_t keep : {8U, 4U, 3U, 0U}) {
    values.truncate(keep);
    ASSERT_EQ(values.size(), keep);
    for (auto v = static_cast<uint32_t>(keep); v < 10; ++v) {
      if (values.has_room()) {
        EXPECT_EQ(values.append_in_room(50 + v), 50 + v);
      } else {
        EXPECT_EQ(values.push_back(50 + v), v);
      }
    }
    ASSERT_EQ(values.size(), 10U);
    for (uint32_t v = 0; v < 10; ++v) EXPECT_EQ(values[v], v < keep ? v : 50 + v) << keep << " " << v;
  }
  ChunkedArray<uint32_t, 2> moved = std::move(values);
  EXPECT_EQ(moved.size(), 10U);
  EXPECT_EQ(moved.append(77), 77U);
  EXPECT_EQ(moved[10], 77U);
  EXPECT_TRUE(values.empty());  // NOLINT(bugprone-use-after-move): reset on purpose
  EXPECT_EQ(values.push_back(5), 0U);
  EXPECT_EQ(values[0], 5U);
  EXPECT_EQ(moved[0], 50U);  // the move's source writing again did not touch it
}

struct Ping {
  int value = 0;
};
struct Pong {
  int value = 0;
};

TEST(EventBus, APublisherDeliversToEverySubscriberInOrder) {
  EventBus bus;
  std::vector<std::string> calls;
  bus.subscribe<Ping>([&](const Ping& e) { calls.push_back("a" + std::to_string(e.value)); });
  bus.subscribe<Ping>([&](const Ping& e) { calls.push_back("b" + std::to_string(e.value)); });
  const auto ping = bus.publisher<Ping>();
  const auto pong = bus.publisher<Pong>();
  EXPECT_TRUE(ping.active());
  EXPECT_FALSE(pong.active());
  ping(Ping{1});
  pong(Pong{2});
  ping(Ping{3});
  EXPECT_EQ(calls, (std::vector<std::string>{"a1", "b1", "a3", "b3"}));
}

TEST(EventBus, APublisherCallsOneSubscriberDirectlyAndLoopsOverMore) {
  // One subscriber takes the direct call, none or three the loop.
  EventBus one, three;
  std::vector<std::string> calls;
  one.subscribe<Ping>([&](const Ping& e) { calls.push_back("o" + std::to_string(e.value)); });
  for (const char* name : {"x", "y", "z"}) {
    three.subscribe<Ping>([&, name](const Ping& e) { calls.push_back(name + std::to_string(e.value)); });
  }
  const auto alone = one.publisher<Ping>();
  const auto nobody = one.publisher<Pong>();
  const auto all = three.publisher<Ping>();
  alone(Ping{1});
  nobody(Pong{2});
  all(Ping{3});
  alone(Ping{4});
  EXPECT_EQ(calls, (std::vector<std::string>{"o1", "x3", "y3", "z3", "o4"}));
}

TEST(EventBus, ACachedPublisherSeesSubscribersAddedAfterItsFirstEvent) {
  // Made before any subscriber, used, then more subscribe (of its type and
  // of another, which may move the subscriber lists): it must look them up
  // again and deliver to each, in order, as publish() does.
  EventBus bus;
  std::vector<std::string> calls;
  EventBus::CachedPublisher<Ping> ping(bus);
  ping(Ping{0});  // nobody yet
  bus.subscribe<Ping>([&](const Ping& e) { calls.push_back("a" + std::to_string(e.value)); });
  ping(Ping{1});
  for (int i = 0; i < 20; ++i) bus.subscribe<Pong>([](const Pong&) {});
  bus.subscribe<Ping>([&](const Ping& e) { calls.push_back("b" + std::to_string(e.value)); });
  ping(Ping{2});
  ping(Ping{3});
  bus.publish(Ping{4});
  EXPECT_EQ(calls, (std::vector<std::string>{"a1", "a2", "b2", "a3", "b3", "a4", "b4"}));
}

}  // namespace
}  // namespace orrery::analyzer

// The clock condition's first pass takes the message times the reader
// recorded (LocalTrace::send_post_times, recv_times) and falls back to
// looking them up in the events for a trace without them: both must give
// the same corrections, the same times for the forward replay and the same
// counts. Each rank builds a ring of blocking and non-blocking messages with
// TraceBuilder; odd ranks' clocks run behind, so receives from even ranks
// violate the clock condition and the correction rounds run.

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "mpi_world.h"
#include "world_definitions.h"
#include "orrery/analyzer/clock_condition.h"
#include "orrery/analyzer/communicators.h"
#include "orrery/analyzer/message_exchange.h"
#include "orrery/analyzer/replay.h"
#include "orrery/trace/trace_builder.h"

namespace orrery::analyzer {
namespace {

constexpr uint32_t kWorld = 0;
enum Region : uint32_t { kMain, kSend, kRecv, kIsend, kIrecv, kWait };

void build_ring(LocalTrace& trace, uint32_t me, uint32_t n) {
  const uint32_t right = (me + 1) % n, left = (me + n - 1) % n;
  std::mt19937 random(77 + me);
  std::uniform_int_distribution<int64_t> gap(1, 300);
  TraceBuilder b(trace);
  int64_t t = me % 2 == 1 ? 1000 : 1600;  // odd ranks' clocks run 600 ticks behind
  const auto next = [&] { return t += gap(random); };
  b.enter(next(), kMain);
  for (uint64_t i = 0; i < 400; ++i) {
    if (i % 2 == 0) {
      b.enter(next(), kSend), b.send(next(), right, kWorld, 0, 8), b.leave(next(), kSend);
      b.enter(next(), kRecv), b.recv(next(), left, kWorld, 0, 8), b.leave(next(), kRecv);
    } else {
      b.enter(next(), kIrecv), b.irecv_request(next(), 2 * i), b.leave(next(), kIrecv);
      b.enter(next(), kIsend), b.isend(next(), right, kWorld, 1, 8, 2 * i + 1), b.leave(next(), kIsend);
      b.enter(next(), kWait);
      b.isend_complete(next(), 2 * i + 1);
      b.irecv(next(), left, kWorld, 1, 8, 2 * i);
      b.leave(next(), kWait);
    }
  }
  b.leave(next(), kMain);
  b.finish();
}

std::vector<int64_t> event_times(const LocalTrace& trace) {
  std::vector<int64_t> times;
  trace.events.for_each([&](uint32_t, const Event& event) { times.push_back(event.time); });
  return times;
}

TEST(ClockCondition, RecordedMessageTimesGiveWhatTheEventsGive) {
  const uint32_t n = testing::world_size_u32(), me = testing::world_rank_u32();
  const Definitions definitions = testing::world_definitions(n, kWorld);
  const Communicators comms(definitions, me, MPI_COMM_WORLD);

  for (const bool correct : {false, true}) {
    LocalTrace recorded, looked_up;
    recorded.rank = looked_up.rank = me;
    build_ring(recorded, me, n);
    build_ring(looked_up, me, n);
    ASSERT_EQ(recorded.send_post_times.size(), recorded.sends.size());
    looked_up.send_post_times = {};  // as for a trace built without TraceBuilder
    looked_up.recv_times = {};
    std::string error;
    const MessageMatching matching = MessageMatching::build(recorded, definitions, comms, MPI_COMM_WORLD, error);
    ASSERT_EQ(error, "");
    ClockConditionParameters p;
    p.min_latency = 5;
    p.correct = correct;
    MessageTimes from_recorded, from_events;
    const ClockCorrection a = correct_clock_condition(recorded, matching, MPI_COMM_WORLD, p, &from_recorded);
    const ClockCorrection b = correct_clock_condition(looked_up, matching, MPI_COMM_WORLD, p, &from_events);
    int violations = a.violations > 0 ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &violations, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    EXPECT_EQ(violations, 1) << "the skew makes some receive complete before its send";
    EXPECT_EQ(a.violations, b.violations);
    EXPECT_EQ(a.corrected, b.corrected);
    EXPECT_EQ(a.moved, b.moved);
    EXPECT_EQ(a.max_jump, b.max_jump);
    EXPECT_EQ(a.max_shift, b.max_shift);
    EXPECT_EQ(a.times_changed, b.times_changed);
    EXPECT_EQ(from_recorded.send_enters, from_events.send_enters);
    EXPECT_EQ(from_recorded.post_enters, from_events.post_enters);
    EXPECT_EQ(event_times(recorded), event_times(looked_up));
    EXPECT_EQ(recorded.send_post_times.size(), 0u) << "freed once read";
    EXPECT_EQ(recorded.recv_times.size(), 0u);
  }
}

}  // namespace
}  // namespace orrery::analyzer

// The delay analysis' point-to-point wait states (delay_model.h): the
// one-pass way for tables in call order (find_wait_states_in_call_order)
// against the way that sorts each direction's completions first
// (find_wait_states_by_sorting), on random traces of one rank — calls that
// complete several operations (a Waitall's, a Sendrecv's), cancelled and
// never completed operations, unknown partner times, communicators whose
// ranks map to other world ranks, to this rank only, to a far world rank or
// to none, completing calls inside others (the synchronization points are
// then searched), and receives completed out of posting order (then the
// one-pass way must give up and find_wait_states sort) — and a Sendrecv
// worked out by hand. The forward walk's hand-over of the same wait states
// (forward_wait_states.h) against find_wait_states on such traces, and
// where it must give up.

#include <gtest/gtest.h>

#include <random>
#include <utility>
#include <vector>

#include "delay_model.h"
#include "forward_wait_states.h"

namespace orrery::testing {
namespace {

using analyzer::Definitions;
using analyzer::Event;
using analyzer::EventKind;
using analyzer::kNone;
using analyzer::kNoValue;
using analyzer::LocalTrace;
using analyzer::MessageOp;
using analyzer::MessageTable;
using analyzer::WaitKind;
using analyzer::delay::HandedWaitStates;
using analyzer::delay::WaitState;
using Syncs = std::vector<std::pair<uint32_t, uint32_t>>;

/// Communicators: world, two ranks in reverse order, self, one with a far
/// world rank (beyond the flat array of peers); id 9 is not defined.
Definitions make_definitions() {
  Definitions definitions;
  definitions.ranks.resize(4);
  definitions.comms[0].members = {0, 1, 2, 3};
  definitions.comms[1].members = {3, 2};
  definitions.comms[2].is_self = true;
  definitions.comms[7].members = {1, 5000000};
  return definitions;
}

/// What the random traces are made of.
struct Shape {
  bool out_of_order = false;  ///< receives may complete in a later call
  bool nested = false;        ///< completing calls may lie inside others
  /// Events as the forward walk reads them (forward_wait_states.h): a
  /// receive completed in a later call is posted by an MPI_Irecv's event
  /// and completed by an event in its completing call, call paths stay
  /// small (the walk counts per call path), every partner time is there.
  bool walkable = false;
};

/// A random trace of rank 1 and, per send, its receive's posting time.
struct RandomTrace {
  LocalTrace trace;
  std::vector<int64_t> recv_enters;

  RandomTrace(std::mt19937& random, Shape shape) {
    trace.rank = 1;
    int64_t time = 1000;
    std::vector<uint32_t> pending;  // receives posted, completed in a later call
    const auto roll = [&](uint32_t n) { return static_cast<uint32_t>(random() % n); };
    const auto push = [&](EventKind kind, uint32_t link) {
      time += roll(4) == 0 ? 0 : roll(40);
      // Enters' call paths spread over every reference an event can hold,
      // some none (kRefMask), from the index (the random stream stays).
      const auto index = static_cast<uint32_t>(trace.events.size());
      uint32_t ref = Event::kRefMask;
      if (kind == EventKind::kEnter && index % 8 != 3) {
        ref = static_cast<uint32_t>((uint64_t{index} * 2654435761u) % Event::kRefMask);
        if (shape.walkable) ref %= 1000;
      }
      return trace.events.push_back(Event::make(time, kind, ref, link));
    };
    const auto add_op = [&](MessageTable& table, uint32_t call) {
      MessageOp op;
      op.post_call = call;
      op.complete_call = roll(20) == 0 ? kNone : call;
      op.cancelled = roll(20) == 0;
      const uint32_t comms[] = {0, 0, 0, 1, 2, 7, 9};
      op.comm = comms[roll(7)];
      op.peer = roll(op.comm == 0 ? 5 : 2);  // sometimes beyond the communicator
      const uint32_t index = table.push_back(op);
      table[index].post_event = table[index].complete_event =
          push(&table == &trace.recvs ? EventKind::kRecv : EventKind::kSend, index);
      return index;
    };
    // Ops of one call: receives and sends, maybe a call inside it.
    const auto call = [&](auto&& self, int depth) -> void {
      const uint32_t enter = push(EventKind::kEnter, 0);
      uint32_t completed_here = kNone;  // its event last (after later receives': out of table order)
      if (!pending.empty() && roll(2) == 0) {  // earlier receives complete here, any order
        const uint32_t k = roll(static_cast<uint32_t>(pending.size()));
        trace.recvs[pending[k]].complete_call = enter;
        completed_here = pending[k];
        pending.erase(pending.begin() + k);
      }
      for (uint32_t n = roll(3) + (roll(3) == 0 ? 2 : 0); n > 0; --n) {
        const uint32_t r = add_op(trace.recvs, enter);
        if (shape.out_of_order && roll(4) == 0) {
          trace.recvs[r].complete_call = kNone;
          pending.push_back(r);
          if (shape.walkable) {  // its event posts it
            Event& post = trace.events[trace.recvs[r].post_event];
            post = Event::make(post.time, EventKind::kIrecvRequest, Event::kRefMask, r);
          }
        }
      }
      for (uint32_t n = roll(3); n > 0; --n) add_op(trace.sends, enter);
      if (shape.nested && depth == 0 && roll(4) == 0) self(self, depth + 1);
      if (shape.nested && roll(3) == 0) add_op(roll(2) == 0 ? trace.recvs : trace.sends, enter);
      if (shape.walkable && completed_here != kNone) {
        trace.recvs[completed_here].complete_event = push(EventKind::kIrecv, completed_here);
      }
      const uint32_t leave = push(EventKind::kLeave, enter);
      trace.events[enter].link = leave;
    };
    for (uint32_t calls = 5 + roll(60); calls > 0; --calls) call(call, 0);
    // Partner times around the calls: some waits, some not, some unknown.
    const auto around = [&](uint32_t at) {
      if (at == kNone || roll(10) == 0) return kNoValue;
      return trace.events[at].time + static_cast<int64_t>(roll(200)) - 80;
    };
    for (uint32_t j = 0; j < trace.recvs.size(); ++j) {
      trace.send_enters.push_back(around(trace.recvs[j].post_call));
    }
    for (uint32_t i = 0; i < trace.sends.size(); ++i) {
      recv_enters.push_back(around(trace.sends[i].post_call));
    }
    if (shape.walkable) return;  // the walk reads every partner time
    if (roll(5) == 0 && !trace.send_enters.empty()) trace.send_enters.pop_back();
    if (roll(5) == 0 && !recv_enters.empty()) recv_enters.pop_back();
  }
};

/// Whether each table lists its counted operations in call order.
bool in_call_order(const LocalTrace& trace) {
  for (const MessageTable* table : {&trace.recvs, &trace.sends}) {
    uint32_t last = 0;
    for (const MessageOp& op : *table) {
      if (op.cancelled || op.complete_call == kNone) continue;
      if (op.complete_call < last) return false;
      last = op.complete_call;
    }
  }
  return true;
}

void expect_same(const std::vector<WaitState>& a, const Syncs& a_syncs,
                 const std::vector<WaitState>& b, const Syncs& b_syncs) {
  ASSERT_EQ(a.size(), b.size());
  ASSERT_EQ(a_syncs, b_syncs);
  for (std::size_t k = 0; k < a.size(); ++k) {
    EXPECT_EQ(a[k].kind, b[k].kind) << k;
    EXPECT_EQ(a[k].callpath(), b[k].callpath()) << k;
    EXPECT_EQ(a[k].call, b[k].call) << k;
    EXPECT_EQ(a[k].waiting, b[k].waiting) << k;
    EXPECT_EQ(a[k].op, b[k].op) << k;
    EXPECT_EQ(a[k].delayer, b[k].delayer) << k;
  }
}

TEST(WaitStates, OnePassAgreesWithSortingOnRandomTraces) {
  const Definitions definitions = make_definitions();
  std::mt19937 random(20261126);
  int one_pass = 0, gave_up = 0, searched = 0, late_receivers = 0, waits_found = 0;
  int no_callpath = 0, high_callpath = 0;  // the call path's edge cases reached
  for (int round = 0; round < 1500; ++round) {
    const Shape shape{round % 3 == 1, round % 3 == 2};
    const RandomTrace built(random, shape);
    const LocalTrace& trace = built.trace;
    Syncs sorted_syncs, syncs, fast_syncs;
    const std::vector<WaitState> sorted = analyzer::delay::find_wait_states_by_sorting(
        trace, definitions, built.recv_enters, sorted_syncs);
    const std::vector<WaitState> found =
        analyzer::delay::find_wait_states(trace, definitions, built.recv_enters, syncs);
    expect_same(sorted, sorted_syncs, found, syncs);
    std::vector<WaitState> fast;
    const bool took = analyzer::delay::find_wait_states_in_call_order(
        trace, definitions, built.recv_enters, fast, fast_syncs);
    ASSERT_EQ(took, in_call_order(trace)) << "round " << round;
    if (took) {
      expect_same(sorted, sorted_syncs, fast, fast_syncs);
      ++one_pass;
      searched += shape.nested ? 1 : 0;
    } else {
      ++gave_up;
    }
    for (const WaitState& wait : sorted) {
      late_receivers += wait.kind == WaitKind::kLateReceiver ? 1 : 0;
      // The call path kept with the wait state is its call's (no lookup later).
      ASSERT_EQ(wait.callpath(), trace.events[wait.call].ref()) << "round " << round;
      no_callpath += wait.callpath() == kNone ? 1 : 0;
      high_callpath += wait.callpath() != kNone && wait.callpath() >= (uint32_t{1} << 24) ? 1 : 0;
    }
    waits_found += static_cast<int>(sorted.size());
    if (HasFailure()) FAIL() << "round " << round;
  }
  // The random traces reach every way.
  EXPECT_GT(one_pass, 500);
  EXPECT_GT(gave_up, 100);
  EXPECT_GT(searched, 100);
  EXPECT_GT(late_receivers, 1000);
  EXPECT_GT(waits_found, 10000);
  EXPECT_GT(high_callpath, 1000);  // all 28 bits kept beside the kind
  EXPECT_GT(no_callpath, 100);
}

/// The forward walk's hand-over (forward_wait_states.h) against
/// find_wait_states on random traces as the walk reads them: the same wait
/// states and synchronization points, also when a table is out of call
/// order (find_wait_states sorts; the walk meets the completions in their
/// calls anyway), or given up where a completing call lies inside another —
/// never a different list.
TEST(WaitStates, ForwardWalkHandsOverWhatFindWaitStatesFinds) {
  const Definitions definitions = make_definitions();
  std::mt19937 random(20261127);
  int handed = 0, handed_out_of_order = 0, gave_up = 0, late_receivers = 0, waits_found = 0;
  for (int round = 0; round < 1500; ++round) {
    const Shape shape{round % 3 == 1, round % 3 == 2, true};
    const RandomTrace built(random, shape);
    const LocalTrace& trace = built.trace;
    Syncs syncs;
    const std::vector<WaitState> found =
        analyzer::delay::find_wait_states(trace, definitions, built.recv_enters, syncs);
    HandedWaitStates out;
    analyzer::collect_wait_states_by_walk(trace, built.recv_enters, definitions, out);
    if (out.complete) {
      expect_same(found, syncs, out.waits, out.syncs);
      // Room for the collectives' wait states without a copy (as find_wait_states).
      EXPECT_GE(out.waits.capacity(), out.waits.size() + trace.collectives.size());
      ++handed;
      handed_out_of_order += in_call_order(trace) ? 0 : 1;
    } else {
      EXPECT_TRUE(shape.nested) << "gave up without a completing call inside another";
      EXPECT_TRUE(out.waits.empty() && out.syncs.empty()) << "what it gathered is freed";
      ++gave_up;
    }
    for (const WaitState& wait : found) late_receivers += wait.kind == WaitKind::kLateReceiver ? 1 : 0;
    waits_found += static_cast<int>(found.size());
    if (HasFailure()) FAIL() << "round " << round;
  }
  EXPECT_GT(handed, 1000);
  EXPECT_GT(handed_out_of_order, 200);
  EXPECT_GT(gave_up, 100);
  EXPECT_GT(late_receivers, 1000);
  EXPECT_GT(waits_found, 10000);
}

/// Rank 1: a Recv from rank 0, then a Sendrecv (receive from 0, send to 0),
/// then another Recv from 0, times by hand.
TEST(WaitStates, ASendrecvWaitsForItsReceiverOnlyAfterItsSender) {
  const Definitions definitions = make_definitions();
  LocalTrace trace;
  trace.rank = 1;
  const auto push = [&](int64_t time, EventKind kind, uint32_t link) {
    return trace.events.push_back(Event::make(time, kind, Event::kRefMask, link));
  };
  const auto op = [](uint32_t call) {
    MessageOp m;
    m.post_call = call;
    m.complete_call = call;
    m.comm = 0;
    m.peer = 0;
    return m;
  };
  push(100, EventKind::kEnter, 2);  // 0: Recv
  push(150, EventKind::kRecv, trace.recvs.push_back(op(0)));
  push(160, EventKind::kLeave, 0);  // 2
  push(200, EventKind::kEnter, 6);  // 3: Sendrecv
  push(210, EventKind::kSend, trace.sends.push_back(op(3)));
  push(260, EventKind::kRecv, trace.recvs.push_back(op(3)));
  push(300, EventKind::kLeave, 3);  // 6
  push(400, EventKind::kEnter, 9);  // 7: Recv
  push(420, EventKind::kRecv, trace.recvs.push_back(op(7)));
  push(430, EventKind::kLeave, 7);  // 9
  trace.send_enters = {140, 250, 425};
  const std::vector<int64_t> recv_enters = {280};  // the receiver posted at 280
  Syncs syncs;
  std::vector<WaitState> waits;
  ASSERT_TRUE(analyzer::delay::find_wait_states_in_call_order(trace, definitions, recv_enters,
                                                              waits, syncs));
  ASSERT_EQ(waits.size(), 4u);
  // Late Senders in call order: 140-100, 250-200, 425-400.
  const int64_t late_sender[] = {40, 50, 25};
  const uint32_t calls[] = {0, 3, 7};
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(waits[k].kind, WaitKind::kLateSender);
    EXPECT_EQ(waits[k].call, calls[k]);
    EXPECT_EQ(waits[k].waiting, late_sender[k]);
    EXPECT_EQ(waits[k].op, k);
    EXPECT_EQ(waits[k].delayer, 0u);
  }
  // Then the Late Receiver: from the send's arrival (250) until 280.
  EXPECT_EQ(waits[3].kind, WaitKind::kLateReceiver);
  EXPECT_EQ(waits[3].call, 3u);
  EXPECT_EQ(waits[3].waiting, 30);
  EXPECT_EQ(waits[3].op, 0u);
  // Each starts at the previous message with rank 0 of its direction: the
  // first of each none, the later receives at the Leave of the one before.
  const Syncs expected = {{kNone, kNone}, {2, 0}, {6, 1}, {kNone, kNone}};
  EXPECT_EQ(syncs, expected);
  Syncs sorted_syncs;
  expect_same(waits, syncs,
              analyzer::delay::find_wait_states_by_sorting(trace, definitions, recv_enters,
                                                           sorted_syncs),
              sorted_syncs);
}

}  // namespace
}  // namespace orrery::testing

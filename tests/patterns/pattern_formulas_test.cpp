// Every pattern at the pattern level, without MPI or trace files: replay
// events are published on an EventBus and the severities read back. Each
// case is built so that one clause of one formula decides the answer, so a
// changed clause (a wrong field, a missing clip, a missing filter) fails a
// test here even where the end-to-end data never exercises it.
// tests/mutations.sh applies such changes to a copy and reports survivors.

#include <gtest/gtest.h>

#include <cstdint>
#include <string_view>

#include "orrery/trace/call_tree.h"
#include "orrery/replay/event_bus.h"
#include "orrery/replay/replay_events.h"
#include "orrery/trace/trace.h"
#include "orrery/patterns/pattern.h"
#include "orrery/patterns/refined_events.h"
#include "orrery/patterns/registry.h"

namespace orrery::patterns {
namespace {

using analyzer::CollectiveCompleted;
using analyzer::CollectiveKind;
using analyzer::ReceivesCompleted;
using analyzer::SendsCompleted;

constexpr uint32_t kCallpath = 1;

/// The patterns of one rank attached to a bus; one tick = one second.
class Patterns {
 public:
  Patterns() : severities_(registry_.size(), 3) {
    const uint32_t root = tree_.child(analyzer::kNone, 0);
    tree_.child(root, 1);
    tree_.child(root, 2);
    registry_.attach_all(context_);
  }
  template <class Event>
  void publish(const Event& event) {
    bus_.publish(event);
  }
  [[nodiscard]] double value(std::string_view metric, uint32_t callpath = kCallpath) const {
    return severities_.get(registry_.row(metric), callpath);
  }

 private:
  analyzer::EventBus bus_;
  PatternRegistry registry_;
  SeverityMap severities_;
  analyzer::Definitions definitions_;
  analyzer::CallTree tree_;
  PatternContext context_{bus_, severities_, definitions_, tree_, registry_, 1.0};
};

/// A collective instance of `kind` on this rank: in the call from 100 to 200.
CollectiveCompleted collective(CollectiveKind kind) {
  CollectiveCompleted e;
  e.kind = kind;
  e.call = {kCallpath, 100, 200};
  e.start_enter = 100;
  e.my_rank = 1;
  e.participants = 4;
  e.latest_enter = 100;
  e.earliest_exit = 200;
  e.latest_exit = 200;
  return e;
}

// ---- collectives: waiting until the last process entered --------------------------

TEST(CollectiveFormulas, WaitAtBarrierIsTheTimeUntilTheLatestEnter) {
  Patterns p;
  auto e = collective(CollectiveKind::kBarrier);
  e.latest_enter = 130;
  p.publish(e);
  EXPECT_DOUBLE_EQ(p.value("wait_at_barrier"), 30);
}

TEST(CollectiveFormulas, WaitingIsClippedToTheCall) {
  Patterns p;
  auto e = collective(CollectiveKind::kBarrier);
  e.latest_enter = 500;  // later than this rank's exit: a clock error or a partial instance
  p.publish(e);
  EXPECT_DOUBLE_EQ(p.value("wait_at_barrier"), 100);
}

TEST(CollectiveFormulas, TheLastToEnterDoesNotWait) {
  Patterns p;
  auto e = collective(CollectiveKind::kBarrier);
  e.call = {kCallpath, 150, 200};
  e.latest_enter = 120;  // before this rank entered: negative, not counted
  p.publish(e);
  EXPECT_DOUBLE_EQ(p.value("wait_at_barrier"), 0);
}

TEST(CollectiveFormulas, AGroupOfOneHasNothingToWaitFor) {
  Patterns p;
  auto e = collective(CollectiveKind::kBarrier);
  e.participants = 1;
  e.latest_enter = 130;
  p.publish(e);
  EXPECT_DOUBLE_EQ(p.value("wait_at_barrier"), 0);
}

TEST(CollectiveFormulas, EachKindGoesToItsOwnPattern) {
  Patterns p;
  auto e = collective(CollectiveKind::kAllToAll);
  e.latest_enter = 140;
  p.publish(e);
  EXPECT_DOUBLE_EQ(p.value("wait_at_nxn"), 40);
  EXPECT_DOUBLE_EQ(p.value("wait_at_barrier"), 0);
  EXPECT_DOUBLE_EQ(p.value("late_broadcast"), 0);
  EXPECT_DOUBLE_EQ(p.value("early_reduce"), 0);
  EXPECT_DOUBLE_EQ(p.value("early_scan"), 0);
}

TEST(CollectiveFormulas, InitAndFinalizeWaitForTheLastRank) {
  Patterns p;
  auto init = collective(CollectiveKind::kInit);
  init.latest_enter = 110;
  p.publish(init);
  auto finalize = collective(CollectiveKind::kFinalize);
  finalize.latest_enter = 170;
  p.publish(finalize);
  EXPECT_DOUBLE_EQ(p.value("init_completion"), 10);
  EXPECT_DOUBLE_EQ(p.value("finalize_wait"), 70);
  EXPECT_DOUBLE_EQ(p.value("collectives"), 0) << "MPI_Init/Finalize are not collectives";
}

// ---- completion: after the first process left ------------------------------------

TEST(CollectiveFormulas, CompletionStartsAtTheEarliestExit) {
  Patterns p;
  auto e = collective(CollectiveKind::kBarrier);
  e.latest_enter = 120;
  e.earliest_exit = 170;
  p.publish(e);
  EXPECT_DOUBLE_EQ(p.value("wait_at_barrier"), 20);
  EXPECT_DOUBLE_EQ(p.value("barrier_completion"), 30);  // 200 - 170
}

TEST(CollectiveFormulas, CompletionNeverOverlapsTheWaiting) {
  Patterns p;
  auto e = collective(CollectiveKind::kAllToAll);
  e.latest_enter = 180;    // this rank waited until 180 ...
  e.earliest_exit = 150;   // ... although another left at 150 (skewed clocks)
  p.publish(e);
  EXPECT_DOUBLE_EQ(p.value("wait_at_nxn"), 80);
  EXPECT_DOUBLE_EQ(p.value("nxn_completion"), 20);  // 200 - max(150, 180)
}

TEST(CollectiveFormulas, CompletionCountsFromTheEnterWhenTheLatestEnterWasBefore) {
  Patterns p;
  auto e = collective(CollectiveKind::kAllToAll);
  e.call = {kCallpath, 150, 200};
  e.latest_enter = 120;  // everybody was there before this rank
  e.earliest_exit = 90;  // a rank left before this one entered (skew)
  p.publish(e);
  EXPECT_DOUBLE_EQ(p.value("nxn_completion"), 50);  // 200 - max(90, max(120, 150))
}

// ---- rooted collectives -------------------------------------------------------------

TEST(CollectiveFormulas, LateBroadcastWaitsForTheRootNotTheLatest) {
  Patterns p;
  auto e = collective(CollectiveKind::kOneToAll);
  e.root = 0;
  e.root_enter = 125;
  e.latest_enter = 160;  // another non-root was later: not what a broadcast waits for
  p.publish(e);
  EXPECT_DOUBLE_EQ(p.value("late_broadcast"), 25);
}

TEST(CollectiveFormulas, TheBroadcastRootItselfIsNeverLate) {
  Patterns p;
  auto e = collective(CollectiveKind::kOneToAll);
  e.root = 1;  // == my_rank
  e.root_enter = 125;
  p.publish(e);
  EXPECT_DOUBLE_EQ(p.value("late_broadcast"), 0);
}

TEST(CollectiveFormulas, ABroadcastWithoutAValidRootCountsNothing) {
  Patterns p;
  auto none = collective(CollectiveKind::kOneToAll);
  none.root = analyzer::kNone;
  none.root_enter = 125;
  p.publish(none);
  auto outside = collective(CollectiveKind::kOneToAll);
  outside.root = 4;  // == participants
  outside.root_enter = 125;
  p.publish(outside);
  auto unknown = collective(CollectiveKind::kOneToAll);
  unknown.root = 0;  // the members disagreed on the root: no root enter
  p.publish(unknown);
  EXPECT_DOUBLE_EQ(p.value("late_broadcast"), 0);
}

TEST(CollectiveFormulas, EarlyReduceIsTheRootWaitingForTheOthers) {
  Patterns p;
  auto root = collective(CollectiveKind::kAllToOne);
  root.root = 1;  // == my_rank
  root.latest_enter_of_others = 145;
  p.publish(root);
  EXPECT_DOUBLE_EQ(p.value("early_reduce"), 45);
  auto other = collective(CollectiveKind::kAllToOne);
  other.root = 0;
  other.latest_enter_of_others = 190;  // a non-root does not wait in a reduce
  p.publish(other);
  EXPECT_DOUBLE_EQ(p.value("early_reduce"), 45);
  auto rootless = collective(CollectiveKind::kAllToOne);
  rootless.root = analyzer::kNone;
  rootless.my_rank = analyzer::kNone;
  rootless.latest_enter_of_others = 190;
  p.publish(rootless);
  EXPECT_DOUBLE_EQ(p.value("early_reduce"), 45);
}

TEST(CollectiveFormulas, EarlyScanWaitsForTheLowerRanksOnly) {
  Patterns p;
  auto scan = collective(CollectiveKind::kScan);
  scan.latest_enter_below = 135;
  scan.latest_enter = 180;  // a higher rank was later: irrelevant to a scan
  p.publish(scan);
  auto exscan = collective(CollectiveKind::kExscan);
  exscan.latest_enter_below = 110;
  p.publish(exscan);
  EXPECT_DOUBLE_EQ(p.value("early_scan"), 35 + 10);
  auto first = collective(CollectiveKind::kScan);
  first.my_rank = 0;
  first.latest_enter_below = 190;
  p.publish(first);
  EXPECT_DOUBLE_EQ(p.value("early_scan"), 45) << "rank 0 waits for nobody";
}

TEST(CollectiveFormulas, ANonBlockingCollectiveWaitsOnlyInsideItsWait) {
  Patterns p;
  auto e = collective(CollectiveKind::kAllToAll);
  e.nonblocking = true;
  e.start_enter = 20;               // MPI_Iallreduce started long before
  e.call = {kCallpath, 100, 200};   // the MPI_Wait that completed it
  e.latest_enter = 130;
  p.publish(e);
  EXPECT_DOUBLE_EQ(p.value("wait_at_nxn"), 30);
}

// ---- counters --------------------------------------------------------------------------

TEST(Counters, CollectiveBytesInAndOutAreTheirOwnDirections) {
  Patterns p;
  auto e = collective(CollectiveKind::kAllToAll);
  e.bytes_sent = 10;
  e.bytes_received = 30;
  p.publish(e);
  EXPECT_DOUBLE_EQ(p.value("bytes_coll_out"), 10);
  EXPECT_DOUBLE_EQ(p.value("bytes_coll_in"), 30);
  EXPECT_DOUBLE_EQ(p.value("collectives"), 1);
}

TEST(Counters, PointToPointBytesAndCountsAreAtTheirCallPaths) {
  Patterns p;
  p.publish(analyzer::MessageSent{1, 64});
  p.publish(analyzer::MessageSent{1, 36});
  // Receives are counted from CallPathCounts (raised with each MessageReceived).
  p.publish(analyzer::MessageReceived{2, 0, 0, 8});
  p.publish(analyzer::CallPathCounts{.callpath = 2, .receives = 1, .bytes_received = 8});
  EXPECT_DOUBLE_EQ(p.value("bytes_sent", 1), 100);
  EXPECT_DOUBLE_EQ(p.value("sends", 1), 2);
  EXPECT_DOUBLE_EQ(p.value("bytes_received", 2), 8);
  EXPECT_DOUBLE_EQ(p.value("receives", 2), 1);
  EXPECT_DOUBLE_EQ(p.value("bytes_received", 1), 0);
}

TEST(Counters, CallPathCountsAddToVisitsAndEveryMessageCounter) {
  Patterns p;
  // The forward walk's totals per call path, on top of per-event ones.
  p.publish(analyzer::MessageSent{2, 10});
  p.publish(analyzer::CallPathCounts{2, 5, 2, 64, 4, 40});
  p.publish(analyzer::RegionTotals{2, 7, 0});
  EXPECT_DOUBLE_EQ(p.value("visits", 2), 12);
  EXPECT_DOUBLE_EQ(p.value("sends", 2), 3);
  EXPECT_DOUBLE_EQ(p.value("bytes_sent", 2), 74);
  EXPECT_DOUBLE_EQ(p.value("receives", 2), 4);
  EXPECT_DOUBLE_EQ(p.value("bytes_received", 2), 40);
  EXPECT_DOUBLE_EQ(p.value("visits", 1), 0);
}

// ---- point to point ----------------------------------------------------------------------

TEST(PointToPoint, LateSenderIsTheTimeUntilTheSendStarted) {
  Patterns p;
  p.publish(ReceivesCompleted{{kCallpath, 100, 200}, 140, 1});
  EXPECT_DOUBLE_EQ(p.value("late_sender"), 40);
  EXPECT_DOUBLE_EQ(p.value("late_sender_count"), 1);
}

TEST(PointToPoint, LateSenderIsClippedAndNeverNegative) {
  Patterns p;
  p.publish(ReceivesCompleted{{kCallpath, 100, 200}, 900, 1});  // clipped to the call
  p.publish(ReceivesCompleted{{kCallpath, 300, 400}, 250, 1});  // the send was first
  EXPECT_DOUBLE_EQ(p.value("late_sender"), 100);
  EXPECT_DOUBLE_EQ(p.value("late_sender_count"), 1);
}

TEST(PointToPoint, LateReceiverIsTheTimeUntilTheReceiveWasPosted) {
  Patterns p;
  SendsCompleted e;
  e.call = {kCallpath, 100, 200};
  e.latest_recv_enter = 160;
  e.messages = 1;
  p.publish(e);
  EXPECT_DOUBLE_EQ(p.value("late_receiver"), 60);
  EXPECT_DOUBLE_EQ(p.value("late_receiver_count"), 1);
}

TEST(PointToPoint, AnEagerSendThatReturnedFirstIsNoLateReceiver) {
  Patterns p;
  SendsCompleted e;
  e.call = {kCallpath, 100, 200};
  e.latest_recv_enter = 200;  // posted exactly when the send returned
  p.publish(e);
  e.latest_recv_enter = 260;  // posted after the send returned
  p.publish(e);
  e.latest_recv_enter = INT64_MIN;  // no receive known
  p.publish(e);
  EXPECT_DOUBLE_EQ(p.value("late_receiver"), 0);
  EXPECT_DOUBLE_EQ(p.value("late_receiver_count"), 0);
}

TEST(PointToPoint, ACallThatAlsoReceivedWaitsForItsReceiverOnlyAfterItsSenders) {
  Patterns p;
  SendsCompleted e;  // an MPI_Sendrecv: its sender arrived at 130, its receiver posted at 170
  e.call = {kCallpath, 100, 200};
  e.latest_recv_enter = 170;
  e.latest_send_enter = 130;
  p.publish(e);
  EXPECT_DOUBLE_EQ(p.value("late_receiver"), 40);  // 170 - 130, not 170 - 100
}

// ---- Late Sender, Wrong Order --------------------------------------------------------

/// A receive in a call from `enter` to `enter + 100` whose sender entered its
/// send 50 ticks after the receive began (50 ticks of Late Sender).
void late_receive(Patterns& p, int64_t enter) {
  p.publish(ReceivesCompleted{{kCallpath, enter, enter + 100}, enter + 50, 1});
}

TEST(WrongOrder, AnEarlierSentMessageReceivedLaterReclassifiesEveryWaitInTheWindow) {
  Patterns p;
  late_receive(p, 100);
  late_receive(p, 300);
  // Received after both waits, sent before both late sends: it was available.
  p.publish(analyzer::MessageReceived{kCallpath, 500, 40, 8});
  EXPECT_DOUBLE_EQ(p.value("late_sender_wrong_order"), 100);
  EXPECT_DOUBLE_EQ(p.value("late_sender"), 0);
}

TEST(WrongOrder, AMessageSentAfterTheLateSendChangesNothing) {
  Patterns p;
  late_receive(p, 100);
  p.publish(analyzer::MessageReceived{kCallpath, 500, 160, 8});  // sent after 150
  p.publish(analyzer::MessageReceived{kCallpath, 50, 40, 8});    // received before the wait
  EXPECT_DOUBLE_EQ(p.value("late_sender_wrong_order"), 0);
  EXPECT_DOUBLE_EQ(p.value("late_sender"), 50);
}

TEST(WrongOrder, OnlyTheLastHundredWaitsAreKept) {
  Patterns p;
  for (int i = 0; i < 101; ++i) late_receive(p, 1000 + 200 * i);
  p.publish(analyzer::MessageReceived{kCallpath, 1000000, 0, 8});
  EXPECT_DOUBLE_EQ(p.value("late_sender_wrong_order"), 100 * 50);
  EXPECT_DOUBLE_EQ(p.value("late_sender"), 50);  // the oldest left the window
}

TEST(WrongOrder, TheWindowKeepsTheLatestHundredAfterSomeWereReclassified) {
  Patterns p;
  for (int i = 0; i < 60; ++i) late_receive(p, 1000 + 200 * i);  // send enters 1050 + 200 i
  // Sent at 3050: before the late sends of waits 11..59 only.
  p.publish(analyzer::MessageReceived{kCallpath, 1000000, 3050, 8});
  EXPECT_DOUBLE_EQ(p.value("late_sender_wrong_order"), 49 * 50);
  // 11 waits left; 100 more push the oldest 11 out of the window.
  for (int i = 60; i < 160; ++i) late_receive(p, 1000 + 200 * i);
  p.publish(analyzer::MessageReceived{kCallpath, 2000000, 0, 8});
  EXPECT_DOUBLE_EQ(p.value("late_sender_wrong_order"), (49 + 100) * 50);
  EXPECT_DOUBLE_EQ(p.value("late_sender"), 11 * 50);
}

}  // namespace
}  // namespace orrery::patterns

// The point-to-point wait states when a message table lists its
// completions out of call order (delay_model.h: find_wait_states_by_sorting):
// each direction's (completing call, operation) pairs sorted by call first,
// by merging their few ascending runs.

#include <algorithm>
#include <utility>
#include <vector>

#include "delay_model.h"
#include "delay_wait_walk.h"

namespace orrery::analyzer::delay {
namespace {

/// (call, operation) pairs in call order, operations in index order.
void sort_by_call(std::vector<std::pair<uint32_t, uint32_t>>& pairs) { sort_in_runs(pairs); }

/// One direction's completed messages grouped by their completing call, in
/// call order, with the synchronization point each call's wait state would
/// start at: the last message with the same peer completed before the call.
/// That is the latest (Leave, operation) before the call's Enter as long as
/// no completing call lies inside another (then `nested`: the caller finds
/// them by search instead).
class CompletionWalk {
 public:
  CompletionWalk(const LocalTrace& trace, const MessageTable& table, WorldRanks& world_rank)
      : trace_(trace), table_(table), world_rank_(world_rank) {
    by_call_.reserve(table.size());
    bool in_order = true;  // blocking calls complete their operations in order
    uint32_t last_call = 0;
    table.for_each([&](uint32_t j, const MessageOp& op) {
      if (op.cancelled || op.complete_call == kNone) return;
      in_order = in_order && op.complete_call >= last_call;
      last_call = op.complete_call;
      by_call_.emplace_back(op.complete_call, j);
    });
    if (!in_order) sort_by_call(by_call_);
  }
  /// Calls `visit(call, leave, first, last, sync_of)` per completing call
  /// (its Enter and Leave index), where [first, last) are its entries of
  /// `pairs()` and sync_of(peer) the synchronization point with `peer`
  /// before the call.
  template <class Visit>
  void for_each_call(Visit visit) {
    uint32_t previous_leave = 0;
    const std::pair<uint32_t, uint32_t>* const pairs = by_call_.data();
    const std::size_t count = by_call_.size();
    for (std::size_t k = 0; k < count;) {
      const uint32_t call = pairs[k].first;
      std::size_t end = k + 1;
      while (end < count && pairs[end].first == call) ++end;
      if (previous_leave > call) nested_ = true;
      const uint32_t leave = trace_.events[call].link;
      visit(call, leave, k, end, [this](uint32_t peer) { return last_.get(peer); });
      for (; k < end; ++k) {
        const MessageOp& op = table_[pairs[k].second];
        const uint32_t peer = world_rank_(op.comm, op.peer);
        if (peer != kNone) last_.set(peer, leave, pairs[k].second);
      }
      previous_leave = leave;
    }
  }
  [[nodiscard]] const std::vector<std::pair<uint32_t, uint32_t>>& pairs() const { return by_call_; }
  [[nodiscard]] bool nested() const { return nested_; }

 private:
  const LocalTrace& trace_;
  const MessageTable& table_;
  WorldRanks& world_rank_;
  std::vector<std::pair<uint32_t, uint32_t>> by_call_;  ///< (completing call, operation)
  LastCompleted last_;
  bool nested_ = false;
};

/// Of the operations [first, last) of `pairs` (call, operation), the one
/// whose partner's time in `partner_times` is latest (the first of equals;
/// operations without a known time skipped); kNone if none has one.
uint32_t latest_partner(const std::vector<std::pair<uint32_t, uint32_t>>& pairs, std::size_t first,
                        std::size_t last, const std::vector<int64_t>& partner_times) {
  uint32_t latest = kNone;
  for (std::size_t k = first; k < last; ++k) {
    const uint32_t op = pairs[k].second;
    if (op >= partner_times.size() || partner_times[op] == kNoValue) continue;
    if (latest == kNone || partner_times[op] > partner_times[latest]) latest = op;
  }
  return latest;
}

}  // namespace

std::vector<WaitState> find_wait_states_by_sorting(
    const LocalTrace& trace, const Definitions& definitions, const std::vector<int64_t>& recv_enters,
    std::vector<std::pair<uint32_t, uint32_t>>& syncs) {
  const EventStore& events = trace.events;
  std::vector<WaitState> waits;
  syncs.clear();
  WorldRanks world_rank(definitions, trace.rank);
  // Per call that completed receives, the latest send enter (call order).
  std::vector<std::pair<uint32_t, int64_t>> latest_send_of_call;
  bool nested = false;
  // Adds the wait state of operation `index` of `table` at `call`; returns
  // its delayer (whose synchronization point the caller adds).
  const auto add_wait = [&](WaitKind kind, uint32_t call, int64_t waiting, const MessageTable& table,
                            uint32_t index) {
    const MessageOp& op = table[index];
    const uint32_t delayer = world_rank(op.comm, op.peer);
    waits.push_back(
        WaitState{kind, WaitState::callpath_ref_of(events[call]), call, waiting, index, delayer});
    return delayer;
  };
  {  // Late Sender: receives grouped by the call that completed them.
    CompletionWalk receives(trace, trace.recvs, world_rank);
    // At most one wait state per completing call: reserved (untouched pages
    // cost no memory), so that growing never holds two copies at once.
    waits.reserve(receives.pairs().size() + trace.sends.size());
    syncs.reserve(waits.capacity());
    latest_send_of_call.reserve(receives.pairs().size());
    receives.for_each_call([&](uint32_t call, uint32_t leave, std::size_t first, std::size_t last,
                               auto sync_of) {
      // The receive whose send began last (the first of equals).
      const uint32_t latest = latest_partner(receives.pairs(), first, last, trace.send_enters);
      if (latest == kNone) return;
      const int64_t send_enter = trace.send_enters[latest];
      latest_send_of_call.emplace_back(call, send_enter);
      const int64_t waiting = std::min(send_enter, events[leave].time) - events[call].time;
      if (waiting <= 0) return;
      syncs.push_back(sync_of(add_wait(WaitKind::kLateSender, call, waiting, trace.recvs, latest)));
    });
    nested = receives.nested();
  }  // the receives' walk is freed before the sends' is built
  // Late Receiver: sends grouped by the call that completed them.
  CompletionWalk sends(trace, trace.sends, world_rank);
  auto receives_of_call = latest_send_of_call.begin();  // both in call order: a merge
  sends.for_each_call([&](uint32_t call, uint32_t leave, std::size_t first, std::size_t last,
                          auto sync_of) {
    // The send whose receive was posted last (the first of equals).
    const uint32_t latest = latest_partner(sends.pairs(), first, last, recv_enters);
    if (latest == kNone) return;
    const int64_t recv_enter = recv_enters[latest];
    const int64_t exit = events[leave].time;
    if (exit <= recv_enter) return;  // an eager send: it did not wait
    while (receives_of_call != latest_send_of_call.end() && receives_of_call->first < call) {
      ++receives_of_call;
    }
    const int64_t send_enter =
        receives_of_call != latest_send_of_call.end() && receives_of_call->first == call
            ? receives_of_call->second
            : INT64_MIN;
    const int64_t start = std::max(events[call].time, std::min(send_enter, exit));
    const int64_t waiting = std::min(recv_enter, exit) - start;
    if (waiting <= 0) return;
    syncs.push_back(sync_of(add_wait(WaitKind::kLateReceiver, call, waiting, trace.sends, latest)));
  });
  if (nested || sends.nested()) find_syncs_by_search(trace, definitions, waits, syncs);
  return waits;
}

}  // namespace orrery::analyzer::delay

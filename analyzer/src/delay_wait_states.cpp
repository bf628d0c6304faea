// The point-to-point wait states of the delay analysis and the
// synchronization points their intervals start at (delay_model.h). Linear
// in the messages: the tables are already in call order, so the sorts below
// only run for traces whose completions came out of order.

#include <algorithm>

#include "delay_model.h"
#include "orrery/analyzer/lower_bound_near.h"

namespace orrery::analyzer::delay {

uint32_t WorldRanks::operator()(uint32_t comm, uint32_t rank_in_comm) {
  if (comm != cached_id_) {
    auto it = definitions_.comms.find(comm);
    cached_ = it == definitions_.comms.end() ? nullptr : &it->second;
    cached_id_ = comm;
  }
  if (cached_ == nullptr) return kNone;
  if (cached_->is_self) return rank_in_comm == 0 ? self_ : kNone;
  return rank_in_comm < cached_->members.size() ? cached_->members[rank_in_comm] : kNone;
}

void SyncPoints::add(uint32_t peer, uint32_t event, uint32_t op) {
  if (peer != last_peer_) {
    const auto [it, added] = index_.try_emplace(peer, static_cast<uint32_t>(points_.size()));
    if (added) points_.emplace_back();
    last_peer_ = peer;
    last_index_ = it->second;
  }
  points_[last_index_].emplace_back(event, op);
}

void SyncPoints::finish() {
  hints_.assign(points_.size(), 0);
  for (auto& list : points_) {
    sort_in_runs(list);
  }
}

std::pair<uint32_t, uint32_t> SyncPoints::last(uint32_t peer, uint32_t before) {
  const auto found = index_.find(peer);
  if (found == index_.end()) return {kNone, kNone};
  const auto& list = points_[found->second];
  const std::size_t at = lower_bound_near(
      list, list.size(), before, hints_[found->second],
      [](const std::pair<uint32_t, uint32_t>& p, uint32_t e) { return p.first < e; });
  return at == 0 ? std::make_pair(kNone, kNone) : list[at - 1];
}

namespace {

/// (call, operation) pairs in call order, operations in index order.
void sort_by_call(std::vector<std::pair<uint32_t, uint32_t>>& pairs) {
  sort_in_runs(pairs);
}

}  // namespace

std::vector<WaitState> find_wait_states(const LocalTrace& trace, const Definitions& definitions,
                                        const std::vector<int64_t>& recv_enters) {
  const EventStore& events = trace.events;
  std::vector<WaitState> waits;
  WorldRanks world_rank(definitions, trace.rank);
  // Late Sender: receives grouped by the call that completed them.
  std::vector<std::pair<uint32_t, uint32_t>> by_call;  // (call, receive)
  by_call.reserve(trace.recvs.size());
  for (uint32_t j = 0; j < trace.recvs.size() && j < trace.send_enters.size(); ++j) {
    const MessageOp& op = trace.recvs[j];
    if (op.cancelled || op.complete_call == kNone || trace.send_enters[j] == kNoValue) continue;
    by_call.emplace_back(op.complete_call, j);
  }
  sort_by_call(by_call);
  // Per call that completed receives, the latest send enter (call order).
  std::vector<std::pair<uint32_t, int64_t>> latest_send_of_call;
  // At most one wait state per completing call: reserved (untouched pages
  // cost no memory), so that growing never holds two copies at once.
  waits.reserve(by_call.size() + trace.sends.size());
  latest_send_of_call.reserve(by_call.size());
  for (std::size_t k = 0; k < by_call.size();) {
    const uint32_t call = by_call[k].first;
    uint32_t latest = by_call[k].second;
    for (; k < by_call.size() && by_call[k].first == call; ++k) {
      if (trace.send_enters[by_call[k].second] > trace.send_enters[latest])
        latest = by_call[k].second;
    }
    const int64_t send_enter = trace.send_enters[latest];
    latest_send_of_call.emplace_back(call, send_enter);
    const int64_t waiting = std::min(send_enter, trace.exit_time(call)) - events[call].time;
    if (waiting <= 0) continue;
    const MessageOp& op = trace.recvs[latest];
    waits.push_back(
        WaitState{WaitKind::kLateSender, call, waiting, latest, world_rank(op.comm, op.peer)});
  }
  by_call.clear();
  // Late Receiver: sends grouped by the call that completed them.
  for (uint32_t i = 0; i < trace.sends.size() && i < recv_enters.size(); ++i) {
    const MessageOp& op = trace.sends[i];
    if (op.cancelled || op.complete_call == kNone || recv_enters[i] == kNoValue) continue;
    by_call.emplace_back(op.complete_call, i);
  }
  sort_by_call(by_call);
  auto receives_of_call = latest_send_of_call.begin();  // both in call order: a merge
  for (std::size_t k = 0; k < by_call.size();) {
    const uint32_t call = by_call[k].first;
    uint32_t latest = by_call[k].second;
    for (; k < by_call.size() && by_call[k].first == call; ++k) {
      if (recv_enters[by_call[k].second] > recv_enters[latest]) latest = by_call[k].second;
    }
    const int64_t recv_enter = recv_enters[latest];
    const int64_t exit = trace.exit_time(call);
    if (exit <= recv_enter) continue;  // an eager send: it did not wait
    while (receives_of_call != latest_send_of_call.end() && receives_of_call->first < call) {
      ++receives_of_call;
    }
    const int64_t send_enter =
        receives_of_call != latest_send_of_call.end() && receives_of_call->first == call
            ? receives_of_call->second
            : INT64_MIN;
    const int64_t start = std::max(events[call].time, std::min(send_enter, exit));
    const int64_t waiting = std::min(recv_enter, exit) - start;
    if (waiting <= 0) continue;
    const MessageOp& op = trace.sends[latest];
    waits.push_back(
        WaitState{WaitKind::kLateReceiver, call, waiting, latest, world_rank(op.comm, op.peer)});
  }
  return waits;
}

}  // namespace orrery::analyzer::delay

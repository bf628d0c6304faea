// The point-to-point wait states of the delay analysis and the
// synchronization points their intervals start at (delay_model.h). Linear
// in the messages: one pass over both tables when they list their
// completions in call order; otherwise the way that sorts them first
// (delay_wait_states_sorted.cpp).

#include <algorithm>
#include <utility>
#include <vector>

#include "delay_model.h"
#include "delay_wait_walk.h"
#include "orrery/analyzer/lower_bound_near.h"

namespace orrery::analyzer::delay {

void WorldRanks::look_up(uint32_t comm) {
  auto it = definitions_.comms.find(comm);
  cached_ = it == definitions_.comms.end() ? nullptr : &it->second;
  cached_id_ = comm;
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

/// One direction's completing calls streamed from its table, for tables
/// that list them in call order (blocking calls do): per call, the
/// operation whose partner's time (`times`: per operation, kNoValue if
/// unknown) is latest, the first of equals, and each counted operation with
/// its peer's world rank. Reads each operation once, through a pointer into
/// its chunk: no copy of the table, no chunk lookup per operation.
class CallStream {
 public:
  struct Member {
    uint32_t peer;  ///< world rank, kNone if unknown
    uint32_t op;
  };
  CallStream(const MessageTable& table, const std::vector<int64_t>& times, WorldRanks& world_rank,
             const EventStore& events)
      : table_(table), times_(times), world_rank_(world_rank), events_(events),
        size_(static_cast<uint32_t>(table.size())) {
    point_at(0);
    next();
  }
  [[nodiscard]] uint32_t call() const { return call_; }  ///< kNone after the last
  [[nodiscard]] uint32_t latest() const { return latest_; }  ///< kNone if no time known
  [[nodiscard]] int64_t latest_time() const { return latest_time_; }
  [[nodiscard]] uint32_t latest_peer() const { return latest_peer_; }
  /// Calls `visit(member)` for each counted operation of the call.
  template <class Visit>
  void for_each_member(Visit visit) const {
    visit(first_);
    for (const Member& m : more_) visit(m);
  }
  /// To the next call; false if it comes before this one (out of order).
  bool next() {
    const uint32_t previous = call_;
    while (index_ < size_ && uncounted(*at_)) step();
    if (index_ == size_) {
      call_ = kNone;
      return true;
    }
    call_ = at_->complete_call;
    if (at_ + kPrefetchDistance < chunk_end_) {  // the Enter of a call further on
      const uint32_t ahead = at_[kPrefetchDistance].complete_call;
      if (ahead < events_.size()) events_.prefetch(ahead);
    }
    latest_ = kNone;
    more_.clear();
    first_ = add(*at_);
    step();
    // The call's other operations (a Waitall's), and uncounted ones between.
    while (index_ < size_ && (at_->complete_call == call_ || uncounted(*at_))) [[unlikely]] {
      if (!uncounted(*at_)) more_.push_back(add(*at_));
      step();
    }
    return previous == kNone || call_ > previous;
  }

 private:
  [[nodiscard]] static bool uncounted(const MessageOp& op) {
    return op.cancelled || op.complete_call == kNone;
  }
  Member add(const MessageOp& op) {
    const uint32_t peer = world_rank_(op.comm, op.peer);
    if (index_ < times_.size()) {
      const int64_t time = times_[index_];
      if (time != kNoValue && (latest_ == kNone || time > latest_time_)) {
        latest_ = index_;
        latest_time_ = time;
        latest_peer_ = peer;
      }
    }
    return Member{peer, index_};
  }
  void step() {
    ++index_;
    if (++at_ == chunk_end_) point_at(index_);
  }
  void point_at(uint32_t index) {
    if (index >= size_) return;
    at_ = &table_[index];
    const std::size_t in_chunk = MessageTable::kChunkSize - (index & (MessageTable::kChunkSize - 1));
    chunk_end_ = at_ + std::min<std::size_t>(in_chunk, size_ - index);
  }
  const MessageTable& table_;
  const std::vector<int64_t>& times_;
  WorldRanks& world_rank_;
  const EventStore& events_;
  const uint32_t size_;
  const MessageOp* at_ = nullptr;
  const MessageOp* chunk_end_ = nullptr;
  uint32_t index_ = 0;
  uint32_t call_ = kNone, latest_ = kNone, latest_peer_ = kNone;
  int64_t latest_time_ = kNoValue;
  Member first_{kNone, kNone};  ///< the call's first counted operation
  std::vector<Member> more_;    ///< its others (few calls have any)
};

}  // namespace

void find_syncs_by_search(const LocalTrace& trace, const Definitions& definitions,
                          const std::vector<WaitState>& waits,
                          std::vector<std::pair<uint32_t, uint32_t>>& syncs) {
  WorldRanks world_rank(definitions, trace.rank);
  SyncPoints received_from, sent_to;
  const auto add = [&](const MessageTable& table, SyncPoints& points) {
    for (uint32_t j = 0; j < table.size(); ++j) {
      const MessageOp& op = table[j];
      if (op.cancelled || op.complete_call == kNone) continue;
      const uint32_t peer = world_rank(op.comm, op.peer);
      if (peer != kNone) points.add(peer, trace.events[op.complete_call].link, j);
    }
    points.finish();
  };
  add(trace.recvs, received_from);
  add(trace.sends, sent_to);
  for (std::size_t k = 0; k < syncs.size(); ++k) {
    syncs[k] = (waits[k].kind == WaitKind::kLateSender ? received_from : sent_to)
                   .last(waits[k].delayer, waits[k].call);
  }
}

[[gnu::flatten]] bool find_wait_states_in_call_order(const LocalTrace& trace, const Definitions& definitions,
                                    const std::vector<int64_t>& recv_enters,
                                    std::vector<WaitState>& waits,
                                    std::vector<std::pair<uint32_t, uint32_t>>& syncs) {
  const EventStore& events = trace.events;
  waits.clear();
  syncs.clear();
  // Room for every Late Sender and for the collectives' wait states
  // (CollectiveDelays::find_waits, one per instance at most): no copy as
  // they come. Not for every send too: a block this size comes from memory
  // earlier phases freed (analysis.cpp keeps it below 32 MiB), a larger one
  // from fresh pages, each a fault.
  waits.reserve(trace.recvs.size() + trace.collectives.size());
  syncs.reserve(trace.recvs.size());
  std::vector<WaitState> late_receivers;  // appended after the Late Senders
  std::vector<std::pair<uint32_t, uint32_t>> late_receiver_syncs;
  late_receivers.reserve(trace.sends.size());
  late_receiver_syncs.reserve(trace.sends.size());
  WorldRanks world_rank(definitions, trace.rank);
  LastCompleted received_from, sent_to;
  CallStream receives(trace.recvs, trace.send_enters, world_rank, events);
  CallStream sending(trace.sends, recv_enters, world_rank, events);
  // The latest send enter of the last call that completed receives (a
  // Sendrecv's Late Receiver starts after its Late Sender).
  uint32_t receiving_call = kNone;
  int64_t receiving_send_enter = kNoValue;
  uint32_t previous_receive_leave = 0, previous_send_leave = 0;
  bool nested = false;
  // Both tables' calls merged in call order, a call's receives first.
  while (receives.call() != kNone || sending.call() != kNone) {
    if (receives.call() <= sending.call()) {
      const uint32_t call = receives.call();
      const uint32_t leave = events[call].link;
      nested = nested || previous_receive_leave > call;
      previous_receive_leave = leave;
      if (receives.latest() != kNone) {
        const int64_t send_enter = receives.latest_time();
        receiving_call = call;
        receiving_send_enter = send_enter;
        const int64_t waiting = std::min(send_enter, events[leave].time) - events[call].time;
        if (waiting > 0) {
          const uint32_t delayer = receives.latest_peer();
          waits.push_back(WaitState{WaitKind::kLateSender, WaitState::callpath_ref_of(events[call]),
                                    call, waiting, receives.latest(), delayer});
          syncs.push_back(received_from.get(delayer));
        }
      }
      receives.for_each_member([&](const CallStream::Member& m) {
        if (m.peer != kNone) received_from.set(m.peer, leave, m.op);
      });
      if (!receives.next()) return false;
      continue;
    }
    const uint32_t call = sending.call();
    const uint32_t leave = events[call].link;
    nested = nested || previous_send_leave > call;
    previous_send_leave = leave;
    const int64_t recv_enter = sending.latest_time();
    const int64_t exit = sending.latest() == kNone ? 0 : events[leave].time;
    if (sending.latest() != kNone && exit > recv_enter) {  // else an eager send: it did not wait
      const int64_t send_enter = receiving_call == call ? receiving_send_enter : INT64_MIN;
      const int64_t start = std::max(events[call].time, std::min(send_enter, exit));
      const int64_t waiting = std::min(recv_enter, exit) - start;
      if (waiting > 0) {
        const uint32_t delayer = sending.latest_peer();
        late_receivers.push_back(
            WaitState{WaitKind::kLateReceiver, WaitState::callpath_ref_of(events[call]), call,
                      waiting, sending.latest(), delayer});
        late_receiver_syncs.push_back(sent_to.get(delayer));
      }
    }
    sending.for_each_member([&](const CallStream::Member& m) {
      if (m.peer != kNone) sent_to.set(m.peer, leave, m.op);
    });
    if (!sending.next()) return false;
  }
  if (!late_receivers.empty()) {
    waits.reserve(waits.size() + late_receivers.size() + trace.collectives.size());
  }
  waits.insert(waits.end(), late_receivers.begin(), late_receivers.end());
  syncs.insert(syncs.end(), late_receiver_syncs.begin(), late_receiver_syncs.end());
  if (nested) find_syncs_by_search(trace, definitions, waits, syncs);
  return true;
}

std::vector<WaitState> find_wait_states(const LocalTrace& trace, const Definitions& definitions,
                                        const std::vector<int64_t>& recv_enters,
                                        std::vector<std::pair<uint32_t, uint32_t>>& syncs) {
  std::vector<WaitState> waits;
  if (find_wait_states_in_call_order(trace, definitions, recv_enters, waits, syncs)) return waits;
  std::vector<WaitState>().swap(waits);  // its reserved pages before the general path's
  return find_wait_states_by_sorting(trace, definitions, recv_enters, syncs);
}

}  // namespace orrery::analyzer::delay

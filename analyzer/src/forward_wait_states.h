#pragma once
// The delay analysis' point-to-point wait states collected by the forward
// replay's walk (replay_forward.cpp), which meets every completion inside
// its call anyway: the same Late Senders and Late Receivers, with the same
// synchronization points, as find_wait_states finds from the message tables
// afterwards (delay_wait_states.cpp), handed over (HandedWaitStates) so
// that the delay analysis does not search again. Per completing call: the
// operation whose partner's time is latest (the first of equals in table
// order: the lowest index), and per peer the last message of each
// direction completed before the call. Where that walk's order is not the
// tables' call order (a completing call inside another) the collector
// gives up and the delay analysis searches.

#include <algorithm>
#include <utility>
#include <vector>

#include "delay_wait_walk.h"

namespace orrery::analyzer::delay {

class ForwardWaitStates {
 public:
  /// Collects into `out` (cleared; complete once finish() found no reason
  /// to give up). Reserves as find_wait_states does: every receive may be a
  /// Late Sender, and the collectives' wait states follow.
  ForwardWaitStates(const LocalTrace& trace, const Definitions& definitions, HandedWaitStates& out)
      : world_rank_(definitions, trace.rank), out_(out), collectives_(trace.collectives.size()) {
    out_.complete = false;
    out_.waits.clear();
    out_.syncs.clear();
    out_.waits.reserve(trace.recvs.size() + trace.collectives.size());
    out_.syncs.reserve(trace.recvs.size());
    late_receivers_.reserve(trace.sends.size());
    late_receiver_syncs_.reserve(trace.sends.size());
  }

  /// Receive `r` (`op`) completed inside the call whose Enter is `call`;
  /// `send_enter`: its sender's enter time (kNoValue if unknown).
  [[gnu::always_inline]] void received(uint32_t call, uint32_t r, const MessageOp& op, int64_t send_enter) {
    if (counted(call, op)) [[likely]] receives_.add(world_rank_(op.comm, op.peer), r, send_enter);
  }
  /// Send `s` completed inside the call whose Enter is `call`; `recv_enter`:
  /// its receiver's posting time (kNoValue if unknown).
  [[gnu::always_inline]] void sent(uint32_t call, uint32_t s, const MessageOp& op, int64_t recv_enter) {
    if (counted(call, op)) [[likely]] sends_.add(world_rank_(op.comm, op.peer), s, recv_enter);
  }
  /// The Leave (event `leave`) of the call whose Enter is `call`.
  [[gnu::always_inline]] void left(uint32_t call, uint32_t leave, int64_t enter_time, int64_t leave_time,
                                   uint32_t callpath) {
    if (call == owner_) close_call(leave, enter_time, leave_time, callpath);
  }
  /// After the walk: the Late Receivers after the Late Senders.
  void finish() {
    if (given_up_) return;
    if (!late_receivers_.empty()) {  // room for the collectives' still (no copy later)
      out_.waits.reserve(out_.waits.size() + late_receivers_.size() + collectives_);
      out_.waits.insert(out_.waits.end(), late_receivers_.begin(), late_receivers_.end());
      out_.syncs.insert(out_.syncs.end(), late_receiver_syncs_.begin(), late_receiver_syncs_.end());
    }
    out_.complete = true;
  }

 private:
  /// One direction's completions in the open completing call: the first
  /// kept inline (most calls complete one message per direction), the
  /// others (a Waitall's) in a vector.
  struct Completions {
    struct Member {
      uint32_t peer;  ///< world rank, kNone if unknown
      uint32_t op;
      bool operator<(const Member& other) const { return op < other.op; }
    };
    [[gnu::always_inline]] void add(uint32_t peer, uint32_t op, int64_t time) {
      // Unknown times (kNoValue, the smallest) never count; of equal times the lowest index.
      if (time > latest_time || (time == latest_time && latest != kNone && op < latest)) {
        latest = op;
        latest_time = time;
        latest_peer = peer;
      }
      if (count++ == 0) [[likely]] {
        first = Member{peer, op};
      } else {
        more.push_back(Member{peer, op});
      }
    }
    /// Each member becomes its peer's last completed message (table order:
    /// of two with the same peer, the later operation stays).
    [[gnu::always_inline]] void settle(LastCompleted& last, uint32_t leave) {
      if (count == 1) [[likely]] {
        if (first.peer != kNone) last.set(first.peer, leave, first.op);
      } else {
        settle_several(last, leave);
      }
      count = 0;
      latest = kNone;
      latest_time = kNoValue;
    }
    [[gnu::noinline]] void settle_several(LastCompleted& last, uint32_t leave) {
      more.push_back(first);
      std::sort(more.begin(), more.end());
      for (const Member& m : more) {
        if (m.peer != kNone) last.set(m.peer, leave, m.op);
      }
      more.clear();
    }
    uint32_t count = 0;
    Member first{kNone, kNone};
    std::vector<Member> more;  ///< the call's others, in the walk's order
    uint32_t latest = kNone;   ///< the operation whose partner's time is latest
    uint32_t latest_peer = kNone;
    int64_t latest_time = kNoValue;
  };

  /// Whether the completion counts (as find_wait_states counts them: not
  /// cancelled, completed) and belongs to the open call the walk is in, or
  /// opens it; if it belongs elsewhere the collector gives up (the delay
  /// analysis will search).
  [[gnu::always_inline]] bool counted(uint32_t call, const MessageOp& op) {
    if (op.complete_call != call || op.cancelled || call == kNone) [[unlikely]] return other_call(op);
    if (call == owner_) return true;
    if (owner_ == kNone && previous_leave_ <= call) {  // after the previous one's Leave
      owner_ = call;
      return true;
    }
    give_up();  // inside another completing call
    return false;
  }
  [[gnu::noinline]] bool other_call(const MessageOp& op) {
    if (!op.cancelled && op.complete_call != kNone) give_up();
    return false;
  }
  [[gnu::noinline]] void give_up() {
    if (given_up_) return;
    given_up_ = true;
    owner_ = kNone - 1;  // no call: nothing is collected any more
    std::vector<WaitState>().swap(out_.waits);
    std::vector<std::pair<uint32_t, uint32_t>>().swap(out_.syncs);
    std::vector<WaitState>().swap(late_receivers_);
    std::vector<std::pair<uint32_t, uint32_t>>().swap(late_receiver_syncs_);
  }
  /// The completing call's wait states (as find_wait_states_in_call_order
  /// computes them), then its messages become the last ones per peer.
  [[gnu::always_inline]] void close_call(uint32_t leave, int64_t enter_time, int64_t leave_time,
                                         uint32_t callpath) {
    const uint32_t callpath_ref = callpath & Event::kRefMask;  // kNone: none
    const uint32_t call = owner_;
    int64_t send_enter = INT64_MIN;  // a Sendrecv's Late Receiver starts after its Late Sender
    if (receives_.count != 0) {
      if (receives_.latest != kNone) {
        send_enter = receives_.latest_time;
        const int64_t waiting = std::min(send_enter, leave_time) - enter_time;
        if (waiting > 0) {
          out_.waits.push_back(WaitState{WaitKind::kLateSender, callpath_ref, call, waiting,
                                         receives_.latest, receives_.latest_peer});
          out_.syncs.push_back(received_from_.get(receives_.latest_peer));
        }
      }
      receives_.settle(received_from_, leave);
    }
    if (sends_.count != 0) {
      if (sends_.latest != kNone && leave_time > sends_.latest_time) {  // else an eager send
        const int64_t start = std::max(enter_time, std::min(send_enter, leave_time));
        const int64_t waiting = std::min(sends_.latest_time, leave_time) - start;
        if (waiting > 0) {
          late_receivers_.push_back(WaitState{WaitKind::kLateReceiver, callpath_ref, call, waiting,
                                              sends_.latest, sends_.latest_peer});
          late_receiver_syncs_.push_back(sent_to_.get(sends_.latest_peer));
        }
      }
      sends_.settle(sent_to_, leave);
    }
    previous_leave_ = leave;
    owner_ = kNone;
  }

  WorldRanks world_rank_;
  HandedWaitStates& out_;
  std::size_t collectives_;  ///< their wait states follow (CollectiveDelays::find_waits)
  uint32_t owner_ = kNone;  ///< the Enter of the open completing call
  uint32_t previous_leave_ = 0;  ///< the Leave of the last completing call
  bool given_up_ = false;
  Completions receives_, sends_;
  LastCompleted received_from_, sent_to_;
  std::vector<WaitState> late_receivers_;  ///< appended after the Late Senders
  std::vector<std::pair<uint32_t, uint32_t>> late_receiver_syncs_;
};

}  // namespace orrery::analyzer::delay

namespace orrery::analyzer {

/// The forward replay's walk (replay_forward.cpp) over `trace` as it stands
/// (its send_enters; `recv_enters` per send), raising nothing, collecting
/// only the wait states into `out`: what replay_forward collects with
/// ReplayOptions::wait_states, for tests on traces without partners.
void collect_wait_states_by_walk(const LocalTrace& trace, const std::vector<int64_t>& recv_enters,
                                 const Definitions& definitions, delay::HandedWaitStates& out);

}  // namespace orrery::analyzer

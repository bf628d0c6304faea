// The critical path's wait points where some send of this rank waited for
// its receiver (critical_path_model.h): the Late Sender, Late Receiver and
// collective candidates merged in call order, one per call.

#include <algorithm>
#include <utility>
#include <vector>

#include "critical_path_model.h"
#include "orrery/analyzer/replay.h"

namespace orrery::analyzer::critical_path {
namespace {

/// The point-to-point wait points of one side in posting order. Late
/// Sender (`kind` kSend, at the receives, `partner_enters` the sends' enter
/// times): the receiver waited until the send began. Late Receiver (kRecv,
/// at the sends, the receives' post times): a send that completed only after
/// the receive was posted waited for it (an eager send that returned before
/// does not).
class MessageWaits {
 public:
  MessageWaits(ResumeKind kind, const LocalTrace& trace, const std::vector<int64_t>& partner_enters,
               const Definitions& definitions, const MessageMatching& matching,
               const MessageMatching::RouteIndex& routes)
      : late_sender_(kind == ResumeKind::kSend), trace_(trace),
        table_(late_sender_ ? trace.recvs : trace.sends), partner_enters_(partner_enters),
        matching_(matching), routes_(routes), peers_(definitions, trace.rank),
        end_(std::min<std::size_t>(table_.size(), partner_enters.size())) {}
  /// The next one into `out`; false after the last.
  bool next(Candidate& out) {
    for (; k_ < end_; ++k_) {
      const MessageOp& op = table_[k_];
      const int64_t partner = partner_enters_[k_];
      if (op.cancelled || op.complete_call == kNone || partner == kNoValue ||
          !(late_sender_ ? matching_.recv_matched(k_) : matching_.send_matched(k_))) {
        continue;
      }
      const int64_t enter = trace_.events[op.complete_call].time;
      const int64_t exit = trace_.exit_time(op.complete_call);
      // Until when the call waited for its partner (not after its enter: it did not wait).
      const int64_t wait_end = late_sender_ ? std::min(partner, exit) : exit <= partner ? enter : partner;
      if (wait_end <= enter) continue;
      const uint32_t late = peers_(op.comm, op.peer);
      if (late == kNone) continue;
      const auto k = static_cast<uint32_t>(k_++);
      const Token there = late_sender_
                              ? Token{ResumeKind::kSend, routes_.recv_route(k).number, trace_.rank, 0}
                              : Token{ResumeKind::kRecv, routes_.send_route(k).number, trace_.rank, 0};
      out = Candidate{WaitPoint(op.complete_call, late, there, k), wait_end - enter};
      return true;
    }
    return false;
  }

 private:
  bool late_sender_;
  const LocalTrace& trace_;
  const MessageTable& table_;
  const std::vector<int64_t>& partner_enters_;
  const MessageMatching& matching_;
  const MessageMatching::RouteIndex& routes_;
  PeerRanks peers_;
  std::size_t end_;
  std::size_t k_ = 0;
};

/// Appends a wait point to `found`, one per call: of two waits of the same
/// call the one that ended last (waited longest) stays (ties: the first).
void keep_latest(WaitPoints& found, const WaitPoint& point, int64_t waiting) {
  std::vector<WaitPoint>& points = found.points;
  if (!points.empty() && points.back().call == point.call) {
    if (waiting > found.waiting.back()) {
      points.back() = point;
      found.waiting.back() = waiting;
    }
    return;
  }
  points.push_back(point);
  found.waiting.push_back(waiting);
}
void keep_latest(WaitPoints& found, const Candidate& candidate) {
  keep_latest(found, candidate.point, candidate.waiting);
}

/// Candidates of any order, one per call (the wait that ended last), sorted by call.
void one_per_call(WaitPoints& found) {
  std::vector<Candidate> all(found.points.size());
  for (std::size_t k = 0; k < all.size(); ++k) all[k] = Candidate{found.points[k], found.waiting[k]};
  std::stable_sort(all.begin(), all.end(), [](const Candidate& x, const Candidate& y) {
    return x.point.call != y.point.call ? x.point.call < y.point.call : x.waiting > y.waiting;
  });
  found.points.clear();
  found.waiting.clear();
  for (const Candidate& candidate : all) keep_latest(found, candidate);
}

}  // namespace

bool any_late_receiver(const LocalTrace& trace, const std::vector<int64_t>& recv_enters,
                       const Definitions& definitions, const MessageMatching& matching) {
  const EventStore& events = trace.events;
  const std::size_t end = std::min<std::size_t>(trace.sends.size(), recv_enters.size());
  PeerRanks peers(definitions, trace.rank);
  bool any = false;
  trace.sends.for_each([&](uint32_t k, const MessageOp& op) {
    if (any || k >= end) return;
    const int64_t partner = recv_enters[k];
    if (op.cancelled || op.complete_call == kNone || partner == kNoValue || !matching.send_matched(k)) return;
    const Event& enter = events[op.complete_call];
    // It waited from its enter until the receive was posted, if it completed
    // after that; a receive posted before the send began (the receiver
    // waited) needs no look at the call's exit.
    if (partner <= enter.time || events[enter.link].time <= partner) return;
    any = peers(op.comm, op.peer) != kNone;
  });
  return any;
}

namespace {

/// The Late Sender, Late Receiver and collective wait points, one per call
/// (the wait that ended last), sorted by call. Each kind comes in the order
/// of its operations, which is the order of their completing calls unless
/// operations complete out of order (MPI_Waitany, waits in reverse): one
/// merge in the common case, a sort otherwise.
WaitPoints merge_by_call(MessageWaits late_senders, MessageWaits late_receivers,
                         const std::vector<Candidate>& collective, std::size_t capacity) {
  WaitPoints found;
  found.points.reserve(capacity + collective.size());
  found.waiting.reserve(capacity + collective.size());
  Candidate sender, receiver;
  bool have_sender = late_senders.next(sender);
  bool have_receiver = late_receivers.next(receiver);
  std::size_t c = 0;
  while (have_sender || have_receiver || c < collective.size()) {
    // The earliest call of the three heads (ties: Late Sender, Late Receiver, collective).
    const uint32_t s = have_sender ? sender.point.call : kNone;
    const uint32_t r = have_receiver ? receiver.point.call : kNone;
    const uint32_t k = c < collective.size() ? collective[c].point.call : kNone;
    if (have_sender && s <= r && s <= k) {
      keep_latest(found, sender);
      have_sender = late_senders.next(sender);
    } else if (have_receiver && r <= k) {
      keep_latest(found, receiver);
      have_receiver = late_receivers.next(receiver);
    } else {
      keep_latest(found, collective[c++]);
    }
  }
  return found;
}

}  // namespace

void sort_if_out_of_order(WaitPoints& found) {
  const std::vector<WaitPoint>& points = found.points;
  const bool in_order = std::adjacent_find(points.begin(), points.end(), [](const WaitPoint& x, const WaitPoint& y) {
                          return x.call >= y.call;
                        }) == points.end();
  if (!in_order) one_per_call(found);
}

WaitPoints merge_wait_points(const LocalTrace& trace, const Definitions& definitions,
                             const MessageMatching& matching, const MessageMatching::RouteIndex& routes,
                             const std::vector<int64_t>& recv_enters, const std::vector<Candidate>& collective) {
  // Room for a Late Sender per receive; Late Receivers are few (only a send
  // that is not eager can wait), and room for one per send would double a
  // block that the heap could otherwise give from freed memory.
  const std::size_t capacity = std::min(trace.recvs.size(), trace.send_enters.size());
  WaitPoints found =
      merge_by_call(MessageWaits(ResumeKind::kSend, trace, trace.send_enters, definitions, matching, routes),
                    MessageWaits(ResumeKind::kRecv, trace, recv_enters, definitions, matching, routes),
                    collective, capacity);
  sort_if_out_of_order(found);
  return found;
}

}  // namespace orrery::analyzer::critical_path

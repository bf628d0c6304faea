// The point-to-point wait states the critical path moves along
// (critical_path_model.h), from the matched messages' times, merged in call
// order with the collective ones (replay_critical_path_collectives.cpp);
// then each delayer tells its waiters where the path would go from its
// entry point (one value per message and direction).

#include <algorithm>
#include <atomic>
#include <utility>
#include <vector>

#include "critical_path_model.h"
#include "orrery/analyzer/replay.h"

namespace orrery::analyzer::critical_path {
namespace {

/// Wait points appended to arrays with room for all of them (reserved: no
/// pass that initializes them first), one per call as keep_latest keeps
/// them, noting whether calls came in order.
class PointWriter {
 public:
  PointWriter(WaitPoints& found, std::size_t capacity) : points_(found.points), waiting_(found.waiting) {
    points_.clear();
    waiting_.clear();
    points_.reserve(capacity);
    waiting_.reserve(capacity);
  }
  void add(const WaitPoint& point, int64_t waiting) {
    if (!points_.empty()) {
      const uint32_t last = points_.back().call;
      if (point.call == last) {
        if (waiting > waiting_.back()) {
          points_.back() = point;
          waiting_.back() = waiting;
        }
        return;
      }
      if (point.call < last) in_order_ = false;
    }
    points_.push_back(point);
    waiting_.push_back(waiting);
  }
  /// Whether the calls came in increasing order.
  [[nodiscard]] bool in_order() const { return in_order_; }

 private:
  std::vector<WaitPoint>& points_;
  std::vector<int64_t>& waiting_;
  bool in_order_ = true;
};

/// What late_senders_by_call found besides the wait points.
struct OnePass {
  bool in_order = true;  ///< the calls came in increasing order (else sort_if_out_of_order has work)
  /// Some matched receive was posted after its send began, or its times are
  /// not all known: its sender may have waited for it (a Late Receiver, which
  /// only the sender can tell). Else no send to this rank waited.
  bool late_receiver_possible = false;
};

/// merge_by_call for traces without Late Receivers: the receives' Late
/// Sender wait points (as MessageWaits finds them) merged with the
/// collective ones (`collective` sorted by call) in one pass, with no
/// candidate records in between.
OnePass late_senders_by_call(const LocalTrace& trace, const Definitions& definitions,
                             const MessageMatching& matching, const MessageMatching::RouteIndex& routes,
                             const std::vector<Candidate>& collective, WaitPoints& found) {
  const EventStore& events = trace.events;
  const std::vector<int64_t>& send_enters = trace.send_enters;
  const std::size_t end = std::min<std::size_t>(trace.recvs.size(), send_enters.size());
  PeerRanks peers(definitions, trace.rank);
  PointWriter out(found, end + collective.size());
  OnePass pass;
  std::size_t c = 0;
  trace.recvs.for_each([&](uint32_t k, const MessageOp& op) {
    if (!matching.recv_matched(k)) return;
    // A send waited for this receive only if the receive was posted after
    // the send's completing call began, hence after the send's posting call
    // began (send_enters): after it, the receive's completing call began too.
    const int64_t partner = k < end ? send_enters[k] : kNoValue;
    if (op.cancelled || op.complete_call == kNone || partner == kNoValue) {
      pass.late_receiver_possible = true;
      return;
    }
    const Event& enter = events[op.complete_call];
    if (partner < enter.time) pass.late_receiver_possible = true;
    // Until when the call waited for its sender (not after its enter: it did not wait).
    const int64_t wait_end = std::min(partner, events[enter.link].time);
    if (wait_end <= enter.time) return;
    const uint32_t late = peers(op.comm, op.peer);
    if (late == kNone) return;
    // Collective waits of earlier calls first (a Late Sender goes first at the same call).
    for (; c < collective.size() && collective[c].point.call < op.complete_call; ++c) {
      out.add(collective[c].point, collective[c].waiting);
    }
    out.add(WaitPoint(op.complete_call, late, Token{ResumeKind::kSend, routes.recv_route(k).number, trace.rank, 0}, k),
            wait_end - enter.time);
  });
  for (; c < collective.size(); ++c) out.add(collective[c].point, collective[c].waiting);
  pass.in_order = out.in_order();
  return pass;
}

// Atomic: with fewer analysis processes than traced ranks, each thread
// of a process runs a rank's search (block_host.h).
std::atomic<WaitPointSearch> search_mode{WaitPointSearch::kAuto};
std::atomic<uint64_t> merges{0};
std::atomic<uint64_t> late_receiver_checks{0};

LookAhead ahead_from(const WaitPoint* wait) {
  if (wait == nullptr) return LookAhead::of(0, Token{ResumeKind::kEnd, 0, 0, 0});
  return LookAhead::of(wait->delayer, wait->resume());
}

/// Per operation of `table`, at its posting call, for the operation's
/// partner: where the path goes on there if it comes from here straight
/// back, i.e. the latest wait before the call was for that partner (packed;
/// 0 if not). Operations come in posting order, so the latest wait before
/// each is found by stepping forward (a search only if an entry goes back).
std::vector<int64_t> back_of(const MessageTable& table, const std::vector<WaitPoint>& points,
                             PeerRanks peers, const TokenPacking& packing) {
  std::vector<int64_t> back;  // filled in order: no zeroing pass first
  back.reserve(table.size());
  const WaitPoint* const first = points.data();
  const WaitPoint* const last = first + points.size();
  const WaitPoint* next = first;  // the first point not before the last entry
  uint32_t previous = 0;
  table.for_each([&](uint32_t /*k*/, const MessageOp& op) {
    const uint32_t entry = posting_call(op);
    if (entry < previous) {
      next = std::lower_bound(first, last, entry,
                              [](const WaitPoint& p, uint32_t event) { return p.call < event; });
    }
    previous = entry;
    while (next != last && next->call < entry) ++next;
    const WaitPoint* wait = next == first ? nullptr : next - 1;
    back.push_back(wait != nullptr && wait->delayer == peers(op.comm, op.peer) ? packing.pack(wait->resume())
                                                                                : 0);
  });
  return back;
}

/// Sets where the path comes back to for the wait points of `kind`, from
/// the values per operation that came along the messages from the delayers.
void apply(std::vector<WaitPoint>& points, ResumeKind kind, const std::vector<int64_t>& back,
           const TokenPacking& packing) {
  const auto kind_bits = static_cast<uint8_t>(kind);
  for (WaitPoint& point : points) {
    if (point.resume_kind == kind_bits && point.op < back.size() && back[point.op] > 0) {
      point.set_back(packing.unpack(back[point.op], point.delayer));
    }
  }
}

}  // namespace

void set_wait_point_search(WaitPointSearch search) { search_mode = search; }
uint64_t wait_point_merges() { return merges; }
uint64_t late_receiver_searches() { return late_receiver_checks; }

const WaitPoint* latest_before(const std::vector<WaitPoint>& points, uint32_t entry) {
  auto it = std::lower_bound(points.begin(), points.end(), entry,
                             [](const WaitPoint& p, uint32_t event) { return p.call < event; });
  return it == points.begin() ? nullptr : &*(it - 1);
}

LookAhead LatestWaitBefore::look_ahead(uint32_t entry) { return ahead_from((*this)(entry)); }

WaitPoints find_wait_points(const LocalTrace& trace, const Definitions& definitions,
                            const MessageMatching& matching,
                            const MessageMatching::RouteIndex& routes,
                            CollectiveArrivals& collectives, const TokenPacking& packing,
                            MPI_Comm world) {
  std::vector<Candidate> collective;
  collectives.find_waits(collective);
  const auto by_call = [](const Candidate& x, const Candidate& y) { return x.point.call < y.point.call; };
  if (!std::is_sorted(collective.begin(), collective.end(), by_call)) {
    std::stable_sort(collective.begin(), collective.end(), by_call);
  }
  WaitPoints found;
  // The receives' posting times at the senders: exchanged (collective) the
  // first time they are needed if the forward replay did not keep them.
  std::vector<int64_t> exchanged;
  bool have_exchanged = false;
  const auto receive_enters = [&]() -> const std::vector<int64_t>& {
    if (trace.recv_post_enters_known) return trace.recv_post_enters;
    if (!have_exchanged) exchanged = receive_post_enters_at_senders(trace, matching, world);
    have_exchanged = true;
    return exchanged;
  };
  // The merge of every kind of candidate (replay_critical_path_merge.cpp).
  const auto merge = [&] {
    found = merge_wait_points(trace, definitions, matching, routes, receive_enters(), collective);
    ++merges;
  };
  // Where the path resumes at the partner: the message's route number
  // (MessageMatching::Route) and this rank, by which the partner finds its
  // own operation (RouteIndex) without an exchange of operation indices.
  // The one pass over the receives, unless a send of this rank waited for
  // its receiver: only the receivers can tell that none could have (every
  // receive posted before its send began), which all ranks agree on below.
  bool late_receivers = search_mode == WaitPointSearch::kMerge;
  bool late_receiver_possible = false;
  if (late_receivers) {
    if (!trace.recv_post_enters_known) receive_enters();  // collective: on every rank
    merge();
  } else {
    const OnePass pass = late_senders_by_call(trace, definitions, matching, routes, collective, found);
    if (!pass.in_order) sort_if_out_of_order(found);
    late_receiver_possible = pass.late_receiver_possible;
  }
  const auto holds = [&found](ResumeKind kind) {
    return std::any_of(found.points.begin(), found.points.end(),
                       [kind](const WaitPoint& point) { return point.resume_kind == static_cast<uint8_t>(kind); });
  };
  // Look-ahead: every process tells the partners that may move the path to
  // it where the path goes from there (at its sends for Late Sender, at its
  // receives' posts for Late Receiver, at its collective starts), if it
  // comes straight back to them: one value per message and direction. A
  // direction whose wait points no process has (Late Receivers are often
  // none: eager sends) is left out, as all processes agree first (with
  // whether any send may have waited for its receiver).
  int64_t waiting_for[3] = {holds(ResumeKind::kSend) ? 1 : 0,  // Late Sender, Late Receiver wait points
                            late_receivers && holds(ResumeKind::kRecv) ? 1 : 0,
                            late_receiver_possible ? 1 : 0};
  vmpi::Allreduce(MPI_IN_PLACE, waiting_for, 3, MPI_INT64_T, MPI_MAX, world);
  if (!late_receivers && waiting_for[2] != 0) {
    // Some send may have waited: each rank looks at its own sends, and one
    // whose did merges every kind of candidate instead; then all agree again.
    ++late_receiver_checks;
    const std::vector<int64_t>& recv_enters = receive_enters();
    if (any_late_receiver(trace, recv_enters, definitions, matching)) {
      merge();
      late_receivers = true;
    }
    waiting_for[0] = holds(ResumeKind::kSend) ? 1 : 0;
    waiting_for[1] = late_receivers && holds(ResumeKind::kRecv) ? 1 : 0;
    vmpi::Allreduce(MPI_IN_PLACE, waiting_for, 2, MPI_INT64_T, MPI_MAX, world);
  }
  std::vector<WaitPoint>& points = found.points;
  if (waiting_for[0] != 0) {
    apply(points, ResumeKind::kSend,
          matching.to_receivers(back_of(trace.sends, points, PeerRanks(definitions, trace.rank), packing), world),
          packing);
  }
  if (waiting_for[1] != 0) {
    apply(points, ResumeKind::kRecv,
          matching.to_senders(back_of(trace.recvs, points, PeerRanks(definitions, trace.rank), packing), world),
          packing);
  }
  collectives.share_look_ahead(points);
  return found;
}

}  // namespace orrery::analyzer::critical_path

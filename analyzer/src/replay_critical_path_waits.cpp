// The wait states the critical path moves along (critical_path_model.h):
// point-to-point from the matched messages' times, collectives from one
// reduction per instance naming the member that arrived last; then each
// delayer tells its waiters where the path would go from its entry point
// (two values per message, two per collective instance).

#include <algorithm>
#include <numeric>
#include <tuple>
#include <utility>
#include <vector>

#include "critical_path_model.h"
#include "vmpi.h"

namespace orrery::analyzer::critical_path {
namespace {

constexpr std::size_t kChunk = 4096;

uint32_t posting_call(const MessageOp& op) {
  return op.post_call == kNone ? op.post_event : op.post_call;
}

/// (time, rank) pairs: the larger time wins, ties go to the larger rank.
void max_pair(void* in, void* inout, int* length, MPI_Datatype* /*type*/) {
  const auto* a = static_cast<const int64_t*>(in);
  auto* b = static_cast<int64_t*>(inout);
  for (int i = 0; i < *length; ++i) {
    const int64_t* x = a + 2 * i;
    int64_t* y = b + 2 * i;
    if (x[0] > y[0] || (x[0] == y[0] && x[1] > y[1])) {
      y[0] = x[0];
      y[1] = x[1];
    }
  }
}

/// The pair type and operation, created and freed with the scope.
class PairMax {
 public:
  PairMax() {
    MPI_Type_contiguous(2, MPI_INT64_T, &type_);
    MPI_Type_commit(&type_);
    MPI_Op_create(&max_pair, 1, &op_);
  }
  ~PairMax() {
    MPI_Op_free(&op_);
    MPI_Type_free(&type_);
  }
  PairMax(const PairMax&) = delete;
  PairMax& operator=(const PairMax&) = delete;
  void allreduce(std::vector<int64_t>& pairs, MPI_Comm comm) const {
    vmpi::Allreduce(MPI_IN_PLACE, pairs.data(), static_cast<int>(pairs.size() / 2), type_, op_, comm);
  }

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
  MPI_Op op_ = MPI_OP_NULL;
};

bool moves_the_path(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kBarrier:
    case CollectiveKind::kAllToAll:
    case CollectiveKind::kOneToAll:
    case CollectiveKind::kAllToOne:
    case CollectiveKind::kInit:
    case CollectiveKind::kFinalize:
      return true;
    default:
      return false;
  }
}

/// Keeps, per call, the wait point whose waiting ended last.
void one_per_call(std::vector<WaitPoint>& points) {
  std::sort(points.begin(), points.end(), [](const WaitPoint& x, const WaitPoint& y) {
    return x.call != y.call ? x.call < y.call : x.wait_end > y.wait_end;
  });
  points.erase(std::unique(points.begin(), points.end(),
                           [](const WaitPoint& x, const WaitPoint& y) { return x.call == y.call; }),
               points.end());
}

}  // namespace

CollectiveArrivals::CollectiveArrivals(const LocalTrace& trace, const Definitions& definitions,
                                       const Communicators& comms)
    : trace_(trace), definitions_(definitions), comms_(comms) {
  for (const auto& [id, def] : definitions.comms) {
    if (comms.get(id) == MPI_COMM_NULL || comms.size(id) < 2) continue;
    by_comm_.push_back(Instances{id, {}, {}});
  }
  for (uint32_t k = 0; k < trace.collectives.size(); ++k) {
    const CollectiveOp& op = trace.collectives[k];
    if (op.complete_call == kNone || op.start_call == kNone || op.kind == CollectiveKind::kOther) {
      continue;
    }
    auto it = std::lower_bound(by_comm_.begin(), by_comm_.end(), op.comm,
                               [](const Instances& entry, uint32_t id) { return entry.comm < id; });
    if (it != by_comm_.end() && it->comm == op.comm) it->ops.push_back(k);
  }
}

uint32_t CollectiveArrivals::start_of(int64_t comm, int64_t ordinal) const {
  auto it = std::lower_bound(by_comm_.begin(), by_comm_.end(), comm,
                             [](const Instances& entry, int64_t id) { return entry.comm < id; });
  if (it == by_comm_.end() || it->comm != comm || ordinal < 0 ||
      static_cast<std::size_t>(ordinal) >= it->ops.size()) {
    return kNone;
  }
  return trace_.collectives[it->ops[static_cast<std::size_t>(ordinal)]].start_call;
}

void CollectiveArrivals::find_waits(std::vector<WaitPoint>& points) {
  const PairMax pair_max;
  std::vector<int64_t> pairs;
  for (Instances& entry : by_comm_) {
    const uint32_t id = entry.comm;
    std::vector<uint32_t>& instances = entry.ops;
    const MPI_Comm comm = comms_.get(id);
    int me = 0;
    vmpi::Comm_rank(comm, &me);
    // Members that saw different numbers of instances: the common prefix.
    int64_t count = static_cast<int64_t>(instances.size());
    vmpi::Allreduce(MPI_IN_PLACE, &count, 1, MPI_INT64_T, MPI_MIN, comm);
    const auto common = static_cast<std::size_t>(count);
    instances.resize(common);
    entry.delayer.assign(common, -1);
    for (std::size_t first = 0; first < common; first += kChunk) {
      const std::size_t m = std::min(kChunk, common - first);
      // Per instance: the latest enter of all, the root's enter, the latest
      // enter of the non-roots, each with the member's rank.
      pairs.assign(6 * m, INT64_MIN);
      for (std::size_t j = 0; j < m; ++j) {
        const CollectiveOp& op = trace_.collectives[instances[first + j]];
        const int64_t enter = trace_.enter_time(op.start_call);
        const bool is_root = op.root == static_cast<uint32_t>(me);
        int64_t* slot = pairs.data() + 6 * j;
        slot[0] = enter;
        slot[1] = me;
        if (op.root != kNone) {
          slot[is_root ? 2 : 4] = enter;
          slot[is_root ? 3 : 5] = me;
        }
      }
      pair_max.allreduce(pairs, comm);
      for (std::size_t j = 0; j < m; ++j) {
        const CollectiveOp& op = trace_.collectives[instances[first + j]];
        if (!moves_the_path(op.kind)) continue;
        const int64_t* slot = pairs.data() + 6 * j;
        const bool is_root = op.root == static_cast<uint32_t>(me);
        // The member the path moves to (every member knows it), and until
        // when this one waited for it (INT64_MIN: it did not wait for it).
        int64_t until = INT64_MIN, delayer = -1;
        if (op.kind == CollectiveKind::kOneToAll) {
          delayer = slot[3];
          if (!is_root) until = slot[2];
        } else if (op.kind == CollectiveKind::kAllToOne) {
          delayer = slot[5];
          if (is_root) until = slot[4];
        } else {
          std::tie(until, delayer) = std::make_pair(slot[0], slot[1]);
        }
        if (delayer < 0) continue;
        entry.delayer[first + j] = static_cast<int32_t>(delayer);
        if (delayer == me || until == INT64_MIN) continue;
        const int64_t wait_end = std::min(until, trace_.exit_time(op.complete_call));
        if (wait_end <= trace_.enter_time(op.complete_call)) continue;
        const uint32_t world = definitions_.world_rank(id, static_cast<uint32_t>(delayer), trace_.rank);
        if (world == kNone) continue;
        points.push_back(WaitPoint{
            .call = op.complete_call, .delayer = world, .wait_end = wait_end,
            .resume = ResumePoint(Token{ResumeKind::kCollective, id, static_cast<int64_t>(first + j), 0}),
            .op = kNone, .ahead = LookAhead{}});
      }
    }
  }
}

void CollectiveArrivals::share_look_ahead(std::vector<WaitPoint>& points) const {
  std::vector<int64_t> values;
  LatestWaitBefore latest(points);
  for (const Instances& entry : by_comm_) {
    const MPI_Comm comm = comms_.get(entry.comm);
    int me = 0;
    vmpi::Comm_rank(comm, &me);
    const std::size_t common = entry.delayer.size();
    for (std::size_t first = 0; first < common; first += kChunk) {
      const std::size_t m = std::min(kChunk, common - first);
      values.assign(2 * m, INT64_MIN);
      for (std::size_t j = 0; j < m; ++j) {
        if (entry.delayer[first + j] != me) continue;
        const LookAhead ahead = latest.look_ahead(trace_.collectives[entry.ops[first + j]].start_call);
        values[2 * j] = ahead.who;
        values[2 * j + 1] = ahead.where;
      }
      vmpi::Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_INT64_T,
                    MPI_MAX, comm);
      for (std::size_t j = 0; j < m; ++j) {
        if (entry.delayer[first + j] < 0 || entry.delayer[first + j] == me) continue;
        const uint32_t call = trace_.collectives[entry.ops[first + j]].complete_call;
        auto it = std::lower_bound(points.begin(), points.end(), call,
                                   [](const WaitPoint& p, uint32_t c) { return p.call < c; });
        if (it == points.end() || it->call != call ||
            it->resume.resume_kind() != ResumeKind::kCollective || it->resume.a != entry.comm ||
            it->resume.b != static_cast<uint32_t>(first + j)) {
          continue;  // this member did not wait, or waited longer for something else
        }
        it->ahead = LookAhead{values[2 * j], values[2 * j + 1]};
      }
    }
  }
}

const WaitPoint* latest_before(const std::vector<WaitPoint>& points, uint32_t entry) {
  auto it = std::lower_bound(points.begin(), points.end(), entry,
                             [](const WaitPoint& p, uint32_t event) { return p.call < event; });
  return it == points.begin() ? nullptr : &*(it - 1);
}

namespace {

LookAhead ahead_from(const WaitPoint* wait) {
  if (wait == nullptr) return LookAhead::of(0, Token{ResumeKind::kEnd, 0, 0, 0});
  return LookAhead::of(wait->delayer, wait->resume.token());
}

}  // namespace

LookAhead look_ahead(const std::vector<WaitPoint>& points, uint32_t entry) {
  return ahead_from(latest_before(points, entry));
}

const WaitPoint* LatestWaitBefore::operator()(uint32_t entry) {
  const std::vector<WaitPoint>& points = *points_;
  const std::size_t n = points.size();
  const auto before = [&](std::size_t i) { return points[i].call < entry; };
  // The answer is the first position whose call is not before `entry`: bracket
  // it between a known-before `low` (or -1) and a known-not-before `high` (or n).
  std::size_t low_end = 0, high = n;  // the answer is in [low_end, high]
  std::size_t p = first_not_before_;
  if (p < n && before(p)) {  // forward
    std::size_t low = p, step = 1;
    high = p + 1;
    while (high < n && before(high)) {
      low = high;
      step <<= 1;
      high = low + step;
    }
    low_end = low + 1;
    high = std::min(high, n);
  } else if (p > 0 && !before(p - 1)) {  // backward
    high = p - 1;
    for (std::size_t step = 1;; step <<= 1) {
      const std::size_t probe = high >= step ? high - step : 0;
      if (before(probe)) {
        low_end = probe + 1;
        break;
      }
      high = probe;
      if (probe == 0) break;  // low_end stays 0
    }
  } else {
    return p == 0 ? nullptr : &points[p - 1];
  }
  const auto it = std::lower_bound(points.begin() + static_cast<std::ptrdiff_t>(low_end),
                                   points.begin() + static_cast<std::ptrdiff_t>(high), entry,
                                   [](const WaitPoint& w, uint32_t event) { return w.call < event; });
  first_not_before_ = static_cast<std::size_t>(it - points.begin());
  return first_not_before_ == 0 ? nullptr : &points[first_not_before_ - 1];
}

LookAhead LatestWaitBefore::look_ahead(uint32_t entry) { return ahead_from((*this)(entry)); }

std::vector<WaitPoint> find_wait_points(const LocalTrace& trace, const Definitions& definitions,
                                        const MessageMatching& matching,
                                        const MessageMatching::RouteIndex& routes,
                                        CollectiveArrivals& collectives, MPI_Comm world) {
  const EventStore& events = trace.events;
  std::vector<int64_t> post_enters(trace.recvs.size());
  for (std::size_t j = 0; j < trace.recvs.size(); ++j) {
    post_enters[j] = events[posting_call(trace.recvs[j])].time;
  }
  std::vector<int64_t> recv_enters = matching.to_senders(post_enters, world);
  std::vector<int64_t>().swap(post_enters);
  // Where the path resumes at the partner: the message's route number
  // (MessageMatching::Route) and this rank, by which the partner finds its
  // own operation (RouteIndex) without an exchange of operation indices.
  const auto self = static_cast<int64_t>(trace.rank);
  std::vector<WaitPoint> points;
  // Late Sender: the receiver waited until the send began.
  for (uint32_t j = 0; j < trace.recvs.size() && j < trace.send_enters.size(); ++j) {
    const MessageOp& op = trace.recvs[j];
    if (op.cancelled || op.complete_call == kNone || trace.send_enters[j] == kNoValue ||
        !matching.recv_matched(j)) {
      continue;
    }
    const int64_t wait_end = std::min(trace.send_enters[j], trace.exit_time(op.complete_call));
    const uint32_t sender = definitions.world_rank(op.comm, op.peer, trace.rank);
    if (wait_end <= events[op.complete_call].time || sender == kNone) continue;
    points.push_back(WaitPoint{
        .call = op.complete_call, .delayer = sender, .wait_end = wait_end,
        .resume = ResumePoint(Token{ResumeKind::kSend, routes.recv_route(j).number, self, 0}),
        .op = j, .ahead = LookAhead{}});
  }
  // Late Receiver: a send that completed only after the receive was posted
  // waited for it (an eager send that returned before does not).
  for (uint32_t i = 0; i < trace.sends.size() && i < recv_enters.size(); ++i) {
    const MessageOp& op = trace.sends[i];
    if (op.cancelled || op.complete_call == kNone || recv_enters[i] == kNoValue ||
        !matching.send_matched(i)) {
      continue;
    }
    const int64_t exit = trace.exit_time(op.complete_call);
    if (exit <= recv_enters[i]) continue;
    const uint32_t receiver = definitions.world_rank(op.comm, op.peer, trace.rank);
    if (recv_enters[i] <= events[op.complete_call].time || receiver == kNone) continue;
    points.push_back(WaitPoint{
        .call = op.complete_call, .delayer = receiver, .wait_end = recv_enters[i],
        .resume = ResumePoint(Token{ResumeKind::kRecv, routes.send_route(i).number, self, 0}),
        .op = i, .ahead = LookAhead{}});
  }
  std::vector<int64_t>().swap(recv_enters);
  collectives.find_waits(points);
  one_per_call(points);

  // Look-ahead: every process tells the partners that may move the path to
  // it where the path goes from there (at its sends for Late Sender, at its
  // receives' posts for Late Receiver, at its collective starts).
  // (who, where) per operation of `table`, at the operation's posting call.
  const auto ahead_of = [&](const MessageTable& table) {
    std::pair<std::vector<int64_t>, std::vector<int64_t>> ahead;
    ahead.first.reserve(table.size());
    ahead.second.reserve(table.size());
    LatestWaitBefore latest(points);
    for (std::size_t k = 0; k < table.size(); ++k) {
      const LookAhead next = latest.look_ahead(posting_call(table[k]));
      ahead.first.push_back(next.who);
      ahead.second.push_back(next.where);
    }
    return ahead;
  };
  // Both values of a message in one exchange per direction; each
  // direction's values are applied and freed before the next is built.
  const auto apply = [&](ResumeKind kind, const std::vector<int64_t>& whos,
                         const std::vector<int64_t>& wheres) {
    for (WaitPoint& point : points) {
      if (point.resume.resume_kind() == kind && point.op < whos.size()) {
        point.ahead = LookAhead{whos[point.op], wheres[point.op]};
      }
    }
  };
  {
    auto [who, where] = ahead_of(trace.sends);
    const auto [whos, wheres] = matching.to_receivers(std::move(who), std::move(where), world);
    apply(ResumeKind::kSend, whos, wheres);
  }
  {
    auto [who, where] = ahead_of(trace.recvs);
    const auto [whos, wheres] = matching.to_senders(std::move(who), std::move(where), world);
    apply(ResumeKind::kRecv, whos, wheres);
  }
  collectives.share_look_ahead(points);
  return points;
}

}  // namespace orrery::analyzer::critical_path

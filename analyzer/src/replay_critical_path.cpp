// The critical path's backward walk (replay_critical_path.h): one token
// passed from the process that finished last to the processes that caused
// its waits, each splitting its stretch of the path over its call paths.

#include "orrery/analyzer/replay_critical_path.h"

#include <algorithm>
#include <vector>

#include "critical_path_model.h"
#include "orrery/analyzer/critical_path_events.h"
#include "orrery/analyzer/synchronization_interval.h"

namespace orrery::analyzer {
namespace {

using critical_path::CollectiveArrivals;
using critical_path::ResumeKind;
using critical_path::Token;
using critical_path::WaitPoint;

constexpr int kTokenTag = 0x4f70;

uint32_t posting_call(const MessageOp& op) {
  return op.post_call == kNone ? op.post_event : op.post_call;
}

/// The end of the done notice: rank 0 tells its children in the binomial
/// tree, each tells its own, so every rank leaves the walk after O(log P).
void forward_done(int rank, int size, MPI_Comm comm) {
  const int64_t done[4] = {static_cast<int64_t>(ResumeKind::kDone), 0, 0, 0};
  int lowest = 1;
  while (lowest < size && (rank & lowest) == 0) lowest <<= 1;
  for (int step = lowest >> 1; step >= 1; step >>= 1) {
    if (rank + step < size) MPI_Send(done, 4, MPI_INT64_T, rank + step, kTokenTag, comm);
  }
}

/// One process's part of the walk.
class Walker {
 public:
  Walker(const LocalTrace& trace, const CallTree& tree, const CollectiveArrivals& collectives,
         std::vector<WaitPoint> points, const EventBus& bus)
      : trace_(trace), collectives_(collectives), points_(std::move(points)), bus_(bus),
        profiler_(trace, tree, waits_of(trace, points_), waiting_of(trace, points_)) {}

  /// Walks back from where `token` says to the latest wait before it;
  /// returns the token for the process that caused that wait (kEnd with
  /// delayer kNone at the start of this process's trace).
  std::pair<Token, uint32_t> step(const Token& token) {
    const uint32_t to = resume_event(token);
    if (to == kNone) {
      complete_ = false;  // a token this rank cannot place: the walk stops here
      return {Token{ResumeKind::kEnd, 0, 0, token.hops}, kNone};
    }
    auto it = std::lower_bound(points_.begin(), points_.end(), to,
                               [](const WaitPoint& p, uint32_t event) { return p.call < event; });
    const WaitPoint* wait = it == points_.begin() ? nullptr : &*(it - 1);
    const IntervalProfile profile = profiler_.profile(wait == nullptr ? kNone : wait->call, to);
    for (const auto& [callpath, ticks] : profile.time) {
      bus_.publish(CriticalPathFound{callpath, ticks});
      length_ += ticks;
    }
    hops_ = std::max(hops_, token.hops);
    if (wait == nullptr) return {Token{ResumeKind::kEnd, 0, 0, token.hops}, kNone};
    Token next = wait->resume;
    next.hops = token.hops + 1;
    return {next, wait->delayer};
  }
  [[nodiscard]] int64_t length() const { return length_; }
  [[nodiscard]] int64_t hops() const { return hops_; }
  [[nodiscard]] bool complete() const { return complete_; }
  void cut_short() { complete_ = false; }

 private:
  static std::vector<std::pair<uint32_t, uint32_t>> waits_of(const LocalTrace&,
                                                             const std::vector<WaitPoint>& points) {
    std::vector<std::pair<uint32_t, uint32_t>> waits;
    for (uint32_t k = 0; k < points.size(); ++k) waits.emplace_back(points[k].call, k);
    return waits;
  }
  /// The stretch of a waiting call before its wait ended is not on the path.
  static std::vector<int64_t> waiting_of(const LocalTrace& trace,
                                         const std::vector<WaitPoint>& points) {
    std::vector<int64_t> waiting;
    for (const WaitPoint& p : points) waiting.push_back(p.wait_end - trace.enter_time(p.call));
    return waiting;
  }
  uint32_t resume_event(const Token& token) const {
    const auto index = static_cast<std::size_t>(std::max<int64_t>(0, token.a));
    switch (token.kind) {
      case ResumeKind::kEnd:
        return trace_.events.size() == 0 ? kNone : static_cast<uint32_t>(trace_.events.size() - 1);
      case ResumeKind::kSend:
        return index < trace_.sends.size() ? posting_call(trace_.sends[index]) : kNone;
      case ResumeKind::kRecv:
        return index < trace_.recvs.size() ? posting_call(trace_.recvs[index]) : kNone;
      case ResumeKind::kCollective:
        return collectives_.start_of(token.a, token.b);
      default:
        return kNone;
    }
  }

  const LocalTrace& trace_;
  const CollectiveArrivals& collectives_;
  std::vector<WaitPoint> points_;
  const EventBus& bus_;
  IntervalProfiler profiler_;
  int64_t length_ = 0;
  int64_t hops_ = 0;
  bool complete_ = true;
};

}  // namespace

CriticalPathStatistics replay_critical_path(const LocalTrace& trace, const CallTree& tree,
                                            const Definitions& definitions,
                                            const Communicators& comms,
                                            const MessageMatching& matching, MPI_Comm world,
                                            const EventBus& bus) {
  CriticalPathStatistics statistics;
  const CollectiveArrivals collectives(trace, definitions, comms);
  std::vector<WaitPoint> points =
      critical_path::find_wait_points(trace, definitions, matching, collectives, world);
  // Every hop moves back to an earlier wait state: more hops than wait
  // states overall means inconsistent times (a cycle); the walk stops there.
  int64_t max_hops = static_cast<int64_t>(points.size());
  MPI_Allreduce(MPI_IN_PLACE, &max_hops, 1, MPI_INT64_T, MPI_SUM, world);
  Walker walker(trace, tree, collectives, std::move(points), bus);

  int rank = 0, size = 0;
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &size);
  // The process whose trace ended last (ties: the highest rank).
  const int64_t my_end =
      trace.events.size() == 0 ? INT64_MIN : trace.events[trace.events.size() - 1].time;
  int64_t end = my_end;
  MPI_Allreduce(MPI_IN_PLACE, &end, 1, MPI_INT64_T, MPI_MAX, world);
  int64_t last_rank = my_end == end ? rank : -1;
  MPI_Allreduce(MPI_IN_PLACE, &last_rank, 1, MPI_INT64_T, MPI_MAX, world);
  if (end == INT64_MIN || last_rank < 0) return statistics;  // no events anywhere
  statistics.last_rank = static_cast<uint32_t>(last_rank);

  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_dup(world, &comm);
  bool have_local = rank == last_rank;
  Token local{ResumeKind::kEnd, 0, 0, 0};
  for (;;) {
    Token token = local;
    if (have_local) {
      have_local = false;
    } else {
      int64_t message[4];
      MPI_Recv(message, 4, MPI_INT64_T, MPI_ANY_SOURCE, kTokenTag, comm, MPI_STATUS_IGNORE);
      token = Token{static_cast<ResumeKind>(message[0]), message[1], message[2], message[3]};
    }
    if (token.kind == ResumeKind::kDone) {
      forward_done(rank, size, comm);
      break;
    }
    auto [next, delayer] = walker.step(token);
    if (next.hops > max_hops) {
      walker.cut_short();
      delayer = kNone;
    }
    if (delayer == kNone) {
      // The path's start: rank 0 spreads the word.
      if (rank == 0) {
        local = Token{ResumeKind::kDone, 0, 0, 0};
        have_local = true;
      } else {
        const int64_t done[4] = {static_cast<int64_t>(ResumeKind::kDone), 0, 0, 0};
        MPI_Send(done, 4, MPI_INT64_T, 0, kTokenTag, comm);
      }
    } else if (delayer == static_cast<uint32_t>(rank)) {
      local = next;
      have_local = true;
    } else {
      const int64_t message[4] = {static_cast<int64_t>(next.kind), next.a, next.b, next.hops};
      MPI_Send(message, 4, MPI_INT64_T, static_cast<int>(delayer), kTokenTag, comm);
    }
  }
  MPI_Comm_free(&comm);

  int64_t sums[1] = {walker.length()};
  MPI_Allreduce(MPI_IN_PLACE, sums, 1, MPI_INT64_T, MPI_SUM, world);
  int64_t hops = walker.hops();
  MPI_Allreduce(MPI_IN_PLACE, &hops, 1, MPI_INT64_T, MPI_MAX, world);
  int complete = walker.complete() ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &complete, 1, MPI_INT, MPI_LAND, world);
  statistics.length = sums[0];
  statistics.hops = static_cast<uint64_t>(hops);
  statistics.complete = complete != 0;
  return statistics;
}

}  // namespace orrery::analyzer

// The collective wait states the critical path moves along
// (critical_path_model.h): one reduction per instance names the member that
// arrived last (the root, the last non-root), and that member tells the
// others where the path would go from its start of the instance. Also
// TokenPacking, whose collective tokens name a communicator by its place.

#include <algorithm>
#include <stdexcept>
#include <tuple>
#include <utility>
#include <vector>

#include "critical_path_model.h"
#include "vmpi.h"

namespace orrery::analyzer::critical_path {
namespace {

/// Places a packed collective token has for its communicator (bits 32-59).
constexpr uint64_t kCommPlaces = uint64_t{1} << 28;

/// Instances per reduction: few round trips (each one waits for the slowest
/// member), 3 MiB of pairs at most.
constexpr std::size_t kChunk = 65536;

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

void CollectiveArrivals::find_waits(std::vector<Candidate>& found) {
  const PairMax pair_max;
  const EventStore& events = trace_.events;
  std::vector<int64_t> pairs;
  for (Instances& entry : by_comm_) {
    const uint32_t id = entry.comm;
    std::vector<uint32_t>& instances = entry.ops;
    const MPI_Comm comm = comms_.get(id);
    int me = 0;
    vmpi::Comm_rank(comm, &me);
    // Members that saw different numbers of instances: the common prefix.
    // Whether no member has an instance with a root: then one (time, rank)
    // pair per instance (the latest enter) instead of three (MIN of both).
    const bool rootless = std::none_of(instances.begin(), instances.end(), [this](uint32_t k) {
      return trace_.collectives[k].root != kNone;
    });
    int64_t agreed[2] = {static_cast<int64_t>(instances.size()), rootless ? 1 : 0};
    vmpi::Allreduce(MPI_IN_PLACE, agreed, 2, MPI_INT64_T, MPI_MIN, comm);
    const auto common = static_cast<std::size_t>(agreed[0]);
    const std::size_t stride = agreed[1] != 0 ? 2 : 6;  // int64 per instance
    instances.resize(common);
    entry.delayer.assign(common, -1);
    const auto op_at = [&](std::size_t j) -> const CollectiveOp& { return trace_.collectives[instances[j]]; };
    for (std::size_t first = 0; first < common; first += kChunk) {
      const std::size_t m = std::min(kChunk, common - first);
      // Per instance: the latest enter of all, the root's enter, the latest
      // enter of the non-roots, each with the member's rank (the last two
      // INT64_MIN where no instance has a root).
      pairs.assign(stride * m, INT64_MIN);
      for (std::size_t j = 0; j < m; ++j) {
        // The instances' calls lie far apart in the trace: fetched ahead.
        if (j + kPrefetchDistance < m) events.prefetch(op_at(first + j + kPrefetchDistance).start_call);
        const CollectiveOp& op = op_at(first + j);
        const int64_t enter = trace_.enter_time(op.start_call);
        const bool is_root = op.root == static_cast<uint32_t>(me);
        int64_t* slot = pairs.data() + stride * j;
        slot[0] = enter;
        slot[1] = me;
        if (op.root != kNone && stride == 6) {
          slot[is_root ? 2 : 4] = enter;
          slot[is_root ? 3 : 5] = me;
        }
      }
      pair_max.allreduce(pairs.data(), pairs.size() / 2, comm);
      for (std::size_t j = 0; j < m; ++j) {
        // Where this member may have waited (it did not arrive last): the
        // completing call's Enter far ahead, its Leave (through the Enter's
        // link, fetched by then) nearer.
        const auto may_wait = [&](std::size_t k) { return pairs[stride * k + 1] != me; };
        if (j + kPrefetchDistance < m && may_wait(j + kPrefetchDistance)) {
          events.prefetch(op_at(first + j + kPrefetchDistance).complete_call);
        }
        if (j + kPrefetchDistance / 2 < m && may_wait(j + kPrefetchDistance / 2)) {
          const uint32_t leave = events[op_at(first + j + kPrefetchDistance / 2).complete_call].link;
          if (leave < events.size()) events.prefetch(leave);
        }
        const CollectiveOp& op = op_at(first + j);
        if (!moves_the_path(op.kind)) continue;
        const int64_t* slot = pairs.data() + stride * j;
        const bool is_root = op.root == static_cast<uint32_t>(me);
        // The member the path moves to (every member knows it), and until
        // when this one waited for it (INT64_MIN: it did not wait for it).
        int64_t until = INT64_MIN, delayer = -1;
        if (op.kind == CollectiveKind::kOneToAll) {
          if (stride == 6) delayer = slot[3];
          if (!is_root && stride == 6) until = slot[2];
        } else if (op.kind == CollectiveKind::kAllToOne) {
          if (stride == 6) delayer = slot[5];
          if (is_root && stride == 6) until = slot[4];
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
        const Token there{ResumeKind::kCollective, id, static_cast<int64_t>(first + j), 0};
        found.push_back(Candidate{WaitPoint(op.complete_call, world, there, kNone),
                                  wait_end - trace_.enter_time(op.complete_call)});
      }
    }
  }
}

void CollectiveArrivals::share_look_ahead(std::vector<WaitPoint>& points) const {
  std::vector<int64_t> values;
  LatestWaitBefore latest(points);  // where the path goes from this member's start of an instance
  LatestWaitBefore waits(points);   // this member's wait point at the completion of an instance
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
        // The instances complete in order: the cursor steps forward from the last.
        const std::size_t at = waits.first_not_before(call);
        if (at == points.size()) continue;
        WaitPoint& point = points[at];
        if (point.call != call || point.resume_kind != static_cast<uint8_t>(ResumeKind::kCollective) ||
            point.resume_a != entry.comm || point.resume_b != static_cast<uint32_t>(first + j)) {
          continue;  // this member did not wait, or waited longer for something else
        }
        point.set_ahead(LookAhead{values[2 * j], values[2 * j + 1]}, trace_.rank);
      }
    }
  }
}

TokenPacking::TokenPacking(const Definitions& definitions) {
  if (definitions.comms.size() >= kCommPlaces) throw std::runtime_error("too many communicators");
  for (const auto& [id, def] : definitions.comms) comm_ids_.push_back(id);
}

int64_t TokenPacking::pack_collective(const Token& token) const {
  const auto place = std::lower_bound(comm_ids_.begin(), comm_ids_.end(),
                                      static_cast<uint32_t>(token.a)) - comm_ids_.begin();
  return (static_cast<int64_t>(token.kind) << kKindShift) | (static_cast<int64_t>(place) << 32) |
         (token.b & kLow32);
}

Token TokenPacking::unpack_collective(int64_t value) const {
  const auto kind = static_cast<ResumeKind>(value >> kKindShift);
  const auto place = static_cast<std::size_t>((value >> 32) & static_cast<int64_t>(kCommPlaces - 1));
  const int64_t comm = place < comm_ids_.size() ? comm_ids_[place] : kNone;
  return Token{kind, comm, value & kLow32, 0};
}

}  // namespace orrery::analyzer::critical_path

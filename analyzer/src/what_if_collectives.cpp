// The what-if replay's collectives (what_if.h): each instance is re-enacted
// by the MPI operation with the traced one's dependencies, started
// non-blocking at the instance's start and completed at its completion, on
// three values (new enter, buffer bytes, traced enter): a broadcast from the
// root, a reduction to the root, a scan, or, for everything else, an
// all-reduction (MAX). O(1) values per instance per rank (docs/design.md §4).

#include <algorithm>
#include <map>

#include "orrery/error.h"
#include "what_if_replayer.h"
#include "vmpi.h"

namespace orrery::analyzer {

void check_collective_counts(const LocalTrace& trace, const Definitions& definitions,
                             const Communicators& comms, MPI_Comm world) {
  std::map<uint32_t, int64_t> counts;
  for (const CollectiveOp& op : trace.collectives) ++counts[op.comm];
  int mismatch = 0;
  // Communicators in id order on every rank: one global order.
  for (const auto& [id, definition] : definitions.comms) {
    const MPI_Comm comm = comms.get(id);
    if (comm == MPI_COMM_NULL) continue;
    const auto it = counts.find(id);
    int64_t range[2] = {it == counts.end() ? 0 : it->second, it == counts.end() ? 0 : -it->second};
    vmpi::Allreduce(MPI_IN_PLACE, range, 2, MPI_INT64_T, MPI_MAX, comm);
    if (range[0] != -range[1]) mismatch = 1;
  }
  vmpi::Allreduce(MPI_IN_PLACE, &mismatch, 1, MPI_INT, MPI_MAX, world);
  if (mismatch != 0) {
    throw InputError(
        "the traces disagree about the collective operations of a communicator (a truncated or "
        "inconsistent trace): the what-if replay needs every member's instances");
  }
}

bool WhatIfReplayer::unmodelled(CollectiveKind kind) {
  return kind == CollectiveKind::kInit || kind == CollectiveKind::kFinalize ||
         kind == CollectiveKind::kOther;
}

void WhatIfReplayer::start_collective(uint32_t index, const Frame& start) {
  const CollectiveOp& op = in_.trace.collectives[index];
  auto pending = std::make_unique<PendingCollective>();
  pending->enter = start.enter;
  pending->original_enter = start.original_enter;
  const auto buffer = static_cast<int64_t>(std::max(op.bytes_sent, op.bytes_received));
  int64_t* mine = pending->mine;
  int64_t* group = pending->group;
  mine[0] = start.enter;
  mine[1] = buffer;
  mine[2] = start.original_enter;
  std::copy(mine, mine + 3, group);
  const MPI_Comm comm = op.comm == kNone ? MPI_COMM_NULL : in_.comms.get(op.comm);
  if (comm == MPI_COMM_NULL) {
    pending->local = true;
  } else if (guesses_ != nullptr && !unmodelled(op.kind)) {
    // The walk without waits (run_without_waits): the group is this rank
    // alone. The operations the model keeps as traced run as always: their
    // group's traced enter matters, not only who came last.
    vmpi::Comm_size(comm, &pending->group_size);
    vmpi::Comm_rank(comm, &pending->rank_in_group);
    std::copy(mine, mine + 3, guesses_->mine[index].begin());
  } else {
    vmpi::Comm_size(comm, &pending->group_size);
    vmpi::Comm_rank(comm, &pending->rank_in_group);
    if (guesses_ != nullptr) std::copy(mine, mine + 3, guesses_->mine[index].begin());
    const bool rooted = op.root != kNone && op.root < static_cast<uint32_t>(pending->group_size);
    const int root = static_cast<int>(op.root);
    // A blocking instance begins and ends within one call: its blocking
    // counterpart (much cheaper than a non-blocking one) right away.
    MPI_Request* request = op.nonblocking ? &pending->request : nullptr;
    if (op.kind == CollectiveKind::kOneToAll && rooted) {
      if (request != nullptr) vmpi::Ibcast(group, 3, MPI_INT64_T, root, comm, request);
      else vmpi::Bcast(group, 3, MPI_INT64_T, root, comm);
    } else if (op.kind == CollectiveKind::kAllToOne && rooted) {
      if (request != nullptr) vmpi::Ireduce(mine, group, 3, MPI_INT64_T, MPI_MAX, root, comm, request);
      else vmpi::Reduce(mine, group, 3, MPI_INT64_T, MPI_MAX, root, comm);
    } else if (op.kind == CollectiveKind::kScan) {
      if (request != nullptr) vmpi::Iscan(mine, group, 3, MPI_INT64_T, MPI_MAX, comm, request);
      else vmpi::Scan(mine, group, 3, MPI_INT64_T, MPI_MAX, comm);
    } else if (op.kind == CollectiveKind::kExscan) {
      if (request != nullptr) vmpi::Iexscan(mine, group, 3, MPI_INT64_T, MPI_MAX, comm, request);
      else vmpi::Exscan(mine, group, 3, MPI_INT64_T, MPI_MAX, comm);
    } else if (request != nullptr) {
      vmpi::Iallreduce(mine, group, 3, MPI_INT64_T, MPI_MAX, comm, request);
    } else {
      vmpi::Allreduce(mine, group, 3, MPI_INT64_T, MPI_MAX, comm);
    }
  }
  collectives_[index] = std::move(pending);
}

int64_t WhatIfReplayer::finish_collective(uint32_t index, int64_t original_exit) {
  const auto it = collectives_.find(index);
  if (it == collectives_.end()) return INT64_MIN;  // a completion without its start
  const std::unique_ptr<PendingCollective> pending = std::move(it->second);
  collectives_.erase(it);
  if (pending->request != MPI_REQUEST_NULL) wait_for(pending->request);
  const CollectiveOp& op = in_.trace.collectives[index];
  const int64_t* group = pending->group;
  if (op.kind == CollectiveKind::kExscan && pending->rank_in_group == 0) {
    std::copy(pending->mine, pending->mine + 3, pending->group);  // no ranks below
  }
  const uint32_t region = in_.tree.region(in_.trace.events[op.start_call].ref());
  const std::string& name =
      region < in_.definitions.regions.size() ? in_.definitions.regions[region].name : std::string();
  const auto size = static_cast<uint32_t>(pending->group_size);
  const auto duration = [&](int64_t buffer, bool with_latency) -> int64_t {
    if (latency_ticks_ == 0 && ticks_per_byte_ == 0) return 0;  // the ideal network: no cost
    const CollectiveCost cost = collective_cost(op.kind, name, size, static_cast<double>(buffer));
    return ticks((with_latency ? cost.rounds * latency_ticks_ : 0.0) + cost.bytes * ticks_per_byte_);
  };
  const int64_t enter = pending->enter;
  const bool rooted = op.root != kNone && op.root < size && !pending->local;
  const bool is_root = rooted && pending->rank_in_group == static_cast<int>(op.root);
  switch (op.kind) {
    case CollectiveKind::kInit:
    case CollectiveKind::kFinalize:
    case CollectiveKind::kOther: {
      // Not modelled: the part after the last member arrived stays as traced.
      const int64_t arrived = std::max(pending->original_enter, std::min(group[2], original_exit));
      return std::max(enter, group[0]) + std::max<int64_t>(0, original_exit - arrived);
    }
    case CollectiveKind::kOneToAll:
      if (!rooted) break;
      if (is_root) return enter + duration(pending->mine[1], false);
      return std::max(enter, group[0] + duration(group[1], true));
    case CollectiveKind::kAllToOne:
      if (!rooted) break;
      if (is_root) return std::max(enter, group[0]) + duration(group[1], true);
      return enter + ticks(static_cast<double>(op.bytes_sent) * ticks_per_byte_);
    default:
      break;
  }
  return std::max(enter, group[0]) + duration(group[1], true);
}

}  // namespace orrery::analyzer

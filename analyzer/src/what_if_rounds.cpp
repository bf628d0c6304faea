// The ideal-network replay in one round without waits (what_if_replayer.h,
// run_without_waits).
//
// Every time of the walk is a maximum over its predecessors plus constants.
// Without rendezvous no time depends on a later event of a partner, so the
// times form an acyclic system with exactly one solution: the event-by-event
// replay's. The round walks the whole trace as if no receive and no
// collective waited, then exchanges every message's value and collective's
// values in bulk. If then no receive's value came later than the walk reached
// the receive, and nobody entered a modelled collective later than this rank
// (on every rank), a second walk with these values would take the same
// maximum everywhere and repeat the first: its times solve the system, so
// they are that solution, bit for bit. Otherwise the event-by-event replay
// runs. (More rounds would settle a chain of k waits in about k rounds; on a
// trace whose waits alternate between ranks that is one round per message.)

#include <algorithm>
#include <limits>

#include "vmpi.h"
#include "what_if_replayer.h"

namespace orrery::analyzer {
namespace {

constexpr int64_t kLowest = std::numeric_limits<int64_t>::min();

}  // namespace

bool WhatIfReplayer::worth_round() const {
  // The round walks every event once and exchanges every message's value in
  // bulk; the replay event by event pays a message's latency per receive.
  int64_t counts[2] = {static_cast<int64_t>(in_.trace.recvs.size()),
                       static_cast<int64_t>(in_.trace.events.size())};
  vmpi::Allreduce(MPI_IN_PLACE, counts, 2, MPI_INT64_T, MPI_SUM, in_.world);
  return counts[0] * kEventsPerReceive >= counts[1];
}

bool WhatIfReplayer::run_without_waits() {
  LocalTrace& trace = in_.trace;
  Guesses guesses;
  guesses.sent.assign(trace.sends.size(), kNoValue);
  guesses.received.assign(trace.recvs.size(), kNoValue);
  guesses.reached.assign(trace.recvs.size(), kNoValue);
  guesses.completed.reserve(trace.recvs.size());
  guesses.mine.assign(trace.collectives.size(), {kLowest, kLowest, kLowest});
  guesses.group = guesses.mine;
  guesses_ = &guesses;
  run(false);
  guesses_ = nullptr;
  exchange_guesses(guesses);
  int64_t waits = would_wait(guesses);
  vmpi::Allreduce(MPI_IN_PLACE, &waits, 1, MPI_INT64_T, MPI_SUM, in_.world);
  return waits == 0;
}

int64_t WhatIfReplayer::would_wait(const Guesses& guesses) const {
  // A second walk would take the same maximum everywhere: at every receive
  // the in link delivered no later than the first walk reached it, and
  // in every modelled collective nobody came later than this rank (the
  // costs are zero on the ideal network, so only the latest enter counts;
  // the unmodelled ones had their group's values in the first walk).
  if (latency_ticks_ != 0 || ticks_per_byte_ != 0) return 1;
  int64_t waits = 0;
  // The in link delivers the latest arrival so far (in completion order);
  // compared with each receive's time, which can fall back (a call without
  // communication keeps its traced length, its scaled inner computation not).
  int64_t delivered = kNoValue;
  for (const uint32_t j : guesses.completed) {
    delivered = std::max(delivered, guesses.received[j]);
    if (delivered != kNoValue && delivered > guesses.reached[j]) ++waits;
  }
  for (std::size_t i = 0; i < guesses.mine.size(); ++i) {
    if (unmodelled(in_.trace.collectives[i].kind) || guesses.mine[i][0] == kLowest) continue;
    if (guesses.group[i][0] > guesses.mine[i][0]) ++waits;
  }
  return waits;
}

void WhatIfReplayer::exchange_guesses(Guesses& guesses) const {
  guesses.received = in_.matching.to_receivers(guesses.sent, in_.world);
  // Communicators in id order on every rank: one global order.
  std::vector<uint32_t> indices;
  for (const auto& [id, definition] : in_.definitions.comms) {
    const MPI_Comm comm = in_.comms.get(id);
    if (comm == MPI_COMM_NULL) continue;
    indices.clear();
    for (uint32_t i = 0; i < in_.trace.collectives.size(); ++i) {
      if (in_.trace.collectives[i].comm == id) indices.push_back(i);
    }
    exchange_collectives(comm, indices, guesses);
  }
}

void WhatIfReplayer::exchange_collectives(MPI_Comm comm, const std::vector<uint32_t>& indices,
                                          Guesses& guesses) const {
  // What each instance's operation (start_collective) leaves in `group`:
  // an all-reduction (MAX) carries broadcasts (only the root contributes)
  // and reductions (the root keeps the maximum, the others their own
  // values); scans have their own operations. Two flags at the end say
  // whether any member has a scan or an exclusive scan here.
  int group_size = 1;
  int rank_in_group = 0;
  vmpi::Comm_size(comm, &group_size);
  vmpi::Comm_rank(comm, &rank_in_group);
  const std::size_t count = indices.size();
  std::vector<int64_t> mine(3 * count + 2, kLowest);
  std::vector<int64_t> reduced(3 * count + 2, kLowest);
  const auto rooted = [&](const CollectiveOp& op) {
    return op.root != kNone && op.root < static_cast<uint32_t>(group_size);
  };
  for (std::size_t k = 0; k < count; ++k) {
    const CollectiveOp& op = in_.trace.collectives[indices[k]];
    const std::array<int64_t, 3>& values = guesses.mine[indices[k]];
    if (op.kind == CollectiveKind::kScan) {
      mine[3 * count] = 1;
      continue;
    }
    if (op.kind == CollectiveKind::kExscan) {
      mine[3 * count + 1] = 1;
      continue;
    }
    const bool broadcast = op.kind == CollectiveKind::kOneToAll && rooted(op);
    if (broadcast && static_cast<int>(op.root) != rank_in_group) continue;
    std::copy(values.begin(), values.end(), mine.begin() + static_cast<std::ptrdiff_t>(3 * k));
  }
  vmpi::Allreduce(mine.data(), reduced.data(), static_cast<int>(mine.size()), MPI_INT64_T, MPI_MAX,
                  comm);
  std::vector<int64_t> own(3 * count);
  for (std::size_t k = 0; k < count; ++k) {
    const std::array<int64_t, 3>& values = guesses.mine[indices[k]];
    std::copy(values.begin(), values.end(), own.begin() + static_cast<std::ptrdiff_t>(3 * k));
  }
  std::vector<int64_t> scanned(3 * count, kLowest);
  std::vector<int64_t> exscanned(3 * count, kLowest);
  const int words = static_cast<int>(3 * count);
  if (reduced[3 * count] > 0) {
    vmpi::Scan(own.data(), scanned.data(), words, MPI_INT64_T, MPI_MAX, comm);
  }
  if (reduced[3 * count + 1] > 0) {
    vmpi::Exscan(own.data(), exscanned.data(), words, MPI_INT64_T, MPI_MAX, comm);
  }
  for (std::size_t k = 0; k < count; ++k) {
    const CollectiveOp& op = in_.trace.collectives[indices[k]];
    const int64_t* from = reduced.data() + 3 * k;
    if (op.kind == CollectiveKind::kScan) {
      from = scanned.data() + 3 * k;
    } else if (op.kind == CollectiveKind::kExscan) {
      // Rank 0's is undefined: it waits for nobody (finish_collective).
      from = rank_in_group == 0 ? own.data() + 3 * k : exscanned.data() + 3 * k;
    } else if (op.kind == CollectiveKind::kAllToOne && rooted(op) &&
               static_cast<int>(op.root) != rank_in_group) {
      from = own.data() + 3 * k;  // a reduction leaves the others' buffers alone
    }
    std::copy(from, from + 3, guesses.group[indices[k]].begin());
  }
}

}  // namespace orrery::analyzer

// Collective replay: the collective instances of each communicator are
// re-enacted over that communicator. Every member took part in the same
// instances in the same order, so one MPI_Allgather per communicator (in
// chunks, to bound memory) gives each member everyone's (start enter,
// completion exit) for every instance, and the patterns compute their
// formulas locally. Communicators are visited in id order on every rank,
// which is one global order, so the blocking collectives cannot deadlock.

#include <algorithm>
#include <map>
#include <vector>

#include "orrery/analyzer/replay.h"
#include "orrery/analyzer/replay_events.h"

namespace orrery::analyzer {
namespace {

constexpr std::size_t kChunk = 4096;

CollectiveCompleted make_event(const LocalTrace& trace, const CollectiveOp& op) {
  const Event& call_enter = trace.events[op.complete_call];
  CollectiveCompleted event;
  event.kind = op.kind;
  event.call = CallContext{call_enter.ref(), call_enter.time, trace.exit_time(op.complete_call)};
  event.start_enter = trace.enter_time(op.start_call);
  event.root = op.root;
  event.bytes_sent = op.bytes_sent;
  event.bytes_received = op.bytes_received;
  event.nonblocking = op.nonblocking;
  event.comm = op.comm;
  return event;
}

}  // namespace

void replay_collectives(const LocalTrace& trace, const Definitions& definitions,
                        const Communicators& comms, const EventBus& bus,
                        ReplayStatistics& statistics, bool tolerate_truncation) {
  // Instances per communicator in start order; the rest are published alone.
  std::map<uint32_t, std::vector<uint32_t>> by_comm;
  for (uint32_t index = 0; index < trace.collectives.size(); ++index) {
    const CollectiveOp& op = trace.collectives[index];
    if (op.complete_call == kNone || op.start_call == kNone) continue;
    // Communicator management and the like carry no wait-state pattern.
    if (op.kind != CollectiveKind::kOther && comms.size(op.comm) > 1) {
      by_comm[op.comm].push_back(index);
      continue;
    }
    CollectiveCompleted event = make_event(trace, op);
    const int64_t enter = event.start_enter, exit = event.call.exit;
    event.enters = std::span<const int64_t>(&enter, 1);
    event.exits = std::span<const int64_t>(&exit, 1);
    bus.publish(event);
    ++statistics.collectives;
  }

  std::vector<int64_t> local, gathered, enters, exits;
  for (const auto& [id, def] : definitions.comms) {
    const MPI_Comm comm = comms.get(id);
    if (comm == MPI_COMM_NULL || comms.size(id) < 2) continue;
    int size = 0, rank = 0;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    const auto n = static_cast<std::size_t>(size);
    const std::vector<uint32_t>& mine = by_comm[id];
    // Everyone must have seen the same number of instances. A truncated
    // trace may have fewer: then the first `common` instances, which every
    // member completed, are replayed and the rest dropped.
    const auto count = static_cast<uint64_t>(mine.size());
    std::vector<uint64_t> counts(n);
    MPI_Allgather(&count, 1, MPI_UINT64_T, counts.data(), 1, MPI_UINT64_T, comm);
    const uint64_t common = *std::min_element(counts.begin(), counts.end());
    const uint64_t most = *std::max_element(counts.begin(), counts.end());
    if (common != most) {
      if (!tolerate_truncation) {
        ++statistics.collective_mismatches;
        continue;
      }
      if (rank == 0) statistics.collectives_dropped += most - common;
    }
    const auto replayed = static_cast<std::size_t>(common);
    for (std::size_t first = 0; first < replayed; first += kChunk) {
      const std::size_t m = std::min(kChunk, replayed - first);
      local.resize(2 * m);
      for (std::size_t j = 0; j < m; ++j) {
        const CollectiveOp& op = trace.collectives[mine[first + j]];
        local[2 * j] = trace.enter_time(op.start_call);
        local[2 * j + 1] = trace.exit_time(op.complete_call);
      }
      gathered.resize(2 * m * n);
      MPI_Allgather(local.data(), static_cast<int>(2 * m), MPI_INT64_T, gathered.data(),
                    static_cast<int>(2 * m), MPI_INT64_T, comm);
      enters.resize(n);
      exits.resize(n);
      for (std::size_t j = 0; j < m; ++j) {
        for (std::size_t r = 0; r < n; ++r) {
          enters[r] = gathered[r * 2 * m + 2 * j];
          exits[r] = gathered[r * 2 * m + 2 * j + 1];
        }
        CollectiveCompleted event = make_event(trace, trace.collectives[mine[first + j]]);
        event.my_rank = static_cast<uint32_t>(rank);
        event.enters = enters;
        event.exits = exits;
        bus.publish(event);
        ++statistics.collectives;
      }
    }
  }
}

}  // namespace orrery::analyzer

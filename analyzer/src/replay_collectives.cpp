// Collective replay: the collective instances of each communicator are
// re-enacted over that communicator by reductions, never by gathering
// everyone's times (docs/design.md §4, "Scale is a contract"). Every member took
// part in the same instances in the same order, so per communicator and
// chunk of instances one vector vmpi::Allreduce(MAX) gives every member the
// group-wide values the formulas need (latest enter, earliest and latest
// exit, the root's enter, the latest enter of the non-roots), and, for
// chunks holding a Scan/Exscan, one vector vmpi::Exscan(MAX) gives each member
// the latest enter of the ranks below it. That is O(1) values per instance
// per rank, whatever the size of the group. Communicators are visited in id
// order on every rank, which is one global order, so the blocking
// collectives cannot deadlock.
//
// A new group-wide value is one more slot in the Allreduce (Slot below, and
// its contribution in fill_slots); a minimum is carried as the maximum of the
// negated value. Values over a per-rank subset of the group (the in-neighbours
// of a neighbourhood collective) are not a reduction over the communicator:
// they travel over a distributed graph of the recorded topology (each rank
// names the edges from its in-neighbours to itself), one
// MPI_Neighbor_allgather per chunk holding neighbourhood collectives,
// O(degree) values per instance per rank.

#include <algorithm>
#include <map>
#include <memory>
#include <vector>

#include "orrery/analyzer/replay.h"
#include "orrery/replay/replay_events.h"
#include "vmpi.h"

namespace orrery::analyzer {
namespace {

constexpr std::size_t kChunk = 4096;

/// The values reduced (by MAX) per instance; a minimum is stored negated.
enum Slot : std::size_t {
  kLatestEnter,
  kEarliestExitNegated,
  kLatestExit,
  kRootEnter,
  kLatestEnterOfOthers,
  kSlots
};

bool is_scan(CollectiveKind kind) {
  return kind == CollectiveKind::kScan || kind == CollectiveKind::kExscan;
}

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

/// This member's contribution to the slots of one instance.
void fill_slots(const CollectiveCompleted& event, uint32_t rank, uint32_t size, int64_t* slots) {
  const bool has_root = event.root != kNone && event.root < size;
  slots[kLatestEnter] = event.start_enter;
  slots[kEarliestExitNegated] = -event.call.exit;
  slots[kLatestExit] = event.call.exit;
  slots[kRootEnter] = has_root && rank == event.root ? event.start_enter : INT64_MIN;
  slots[kLatestEnterOfOthers] = has_root && rank != event.root ? event.start_enter : INT64_MIN;
}

void take_slots(const int64_t* slots, CollectiveCompleted& event) {
  event.latest_enter = slots[kLatestEnter];
  event.earliest_exit = -slots[kEarliestExitNegated];
  event.latest_exit = slots[kLatestExit];
  event.root_enter = slots[kRootEnter];
  event.latest_enter_of_others = slots[kLatestEnterOfOthers];
}

/// The instances every member completed (all of them unless a trace is
/// truncated): the minimum and maximum count over the group, by one
/// Allreduce of (count, -count).
std::pair<uint64_t, uint64_t> common_count(uint64_t count, MPI_Comm comm) {
  int64_t values[2] = {static_cast<int64_t>(count), -static_cast<int64_t>(count)};
  vmpi::Allreduce(MPI_IN_PLACE, values, 2, MPI_INT64_T, MPI_MAX, comm);
  return {static_cast<uint64_t>(-values[1]), static_cast<uint64_t>(values[0])};
}

bool is_neighbor(CollectiveKind kind) { return kind == CollectiveKind::kNeighbor; }

/// The recorded topology of one communicator as an MPI distributed graph:
/// this rank names the edges from its in-neighbours to itself.
class InNeighborGraph {
 public:
  InNeighborGraph(MPI_Comm comm, const std::vector<uint32_t>* in_neighbors)
      : known_(in_neighbors != nullptr) {
    std::vector<int> sources, degrees, destinations;
    int me = 0;
    vmpi::Comm_rank(comm, &me);
    if (in_neighbors != nullptr) {
      for (const uint32_t source : *in_neighbors) {
        sources.push_back(static_cast<int>(source));
        degrees.push_back(1);
        destinations.push_back(me);
      }
    }
    vmpi::Dist_graph_create(comm, static_cast<int>(sources.size()), sources.data(), degrees.data(),
                          destinations.data(), MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &graph_);
    int outdegree = 0, weighted = 0;
    vmpi::Dist_graph_neighbors_count(graph_, &indegree_, &outdegree, &weighted);
  }
  ~InNeighborGraph() { vmpi::Comm_free(&graph_); }
  InNeighborGraph(const InNeighborGraph&) = delete;
  InNeighborGraph& operator=(const InNeighborGraph&) = delete;

  /// Per instance, the latest of the in-neighbours' `enters` (INT64_MIN if none).
  std::vector<int64_t> latest(const std::vector<int64_t>& enters) {
    const auto m = enters.size();
    received_.assign(static_cast<std::size_t>(indegree_) * m, INT64_MIN);
    vmpi::Neighbor_allgather(enters.data(), static_cast<int>(m), MPI_INT64_T, received_.data(),
                           static_cast<int>(m), MPI_INT64_T, graph_);
    std::vector<int64_t> out(m, INT64_MIN);
    for (int k = 0; k < indegree_; ++k) {
      for (std::size_t j = 0; j < m; ++j) {
        out[j] = std::max(out[j], received_[static_cast<std::size_t>(k) * m + j]);
      }
    }
    return out;
  }
  /// Whether this rank knows its in-neighbours (a topology was recorded).
  [[nodiscard]] bool known() const { return known_; }

 private:
  MPI_Comm graph_ = MPI_COMM_NULL;
  int indegree_ = 0;
  bool known_ = false;
  std::vector<int64_t> received_;
};

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
    int64_t slots[kSlots];
    fill_slots(event, 0, 1, slots);
    take_slots(slots, event);
    bus.publish(event);
    ++statistics.collectives;
  }

  std::vector<int64_t> reduced, below;
  std::vector<CollectiveCompleted> events;
  for (const auto& [id, def] : definitions.comms) {
    const MPI_Comm comm = comms.get(id);
    if (comm == MPI_COMM_NULL || comms.size(id) < 2) continue;
    int size = 0, rank = 0;
    vmpi::Comm_size(comm, &size);
    vmpi::Comm_rank(comm, &rank);
    const auto members = static_cast<uint32_t>(size);
    const auto me = static_cast<uint32_t>(rank);
    const std::vector<uint32_t>& mine = by_comm[id];
    // Everyone must have seen the same number of instances. A truncated
    // trace may have fewer: then the first `common` instances, which every
    // member completed, are replayed and the rest dropped.
    const auto [common, most] = common_count(mine.size(), comm);
    if (common != most) {
      if (!tolerate_truncation) {
        ++statistics.collective_mismatches;
        continue;
      }
      if (rank == 0) statistics.collectives_dropped += most - common;
    }
    const auto replayed = static_cast<std::size_t>(common);
    std::unique_ptr<InNeighborGraph> graph;  // made when the first neighbourhood collective comes
    for (std::size_t first = 0; first < replayed; first += kChunk) {
      const std::size_t m = std::min(kChunk, replayed - first);
      // The slots of every instance, then the number of scans in the chunk
      // (so that all members agree whether the Exscan below is needed).
      events.resize(m);
      reduced.resize(kSlots * m + 2);
      int64_t scans = 0, neighbors = 0;
      for (std::size_t j = 0; j < m; ++j) {
        events[j] = make_event(trace, trace.collectives[mine[first + j]]);
        events[j].my_rank = me;
        events[j].participants = members;
        fill_slots(events[j], me, members, &reduced[kSlots * j]);
        if (is_scan(events[j].kind)) ++scans;
        if (is_neighbor(events[j].kind)) ++neighbors;
      }
      reduced[kSlots * m] = scans;
      reduced[kSlots * m + 1] = neighbors;
      vmpi::Allreduce(MPI_IN_PLACE, reduced.data(), static_cast<int>(reduced.size()), MPI_INT64_T,
                    MPI_MAX, comm);
      if (reduced[kSlots * m] > 0) {
        below.resize(m);
        for (std::size_t j = 0; j < m; ++j) {
          below[j] = is_scan(events[j].kind) ? events[j].start_enter : INT64_MIN;
        }
        vmpi::Exscan(MPI_IN_PLACE, below.data(), static_cast<int>(m), MPI_INT64_T, MPI_MAX, comm);
      }
      if (reduced[kSlots * m + 1] > 0) {
        if (!graph) {
          const auto topology = definitions.in_neighbors.find(id);
          graph = std::make_unique<InNeighborGraph>(
              comm, topology == definitions.in_neighbors.end() ? nullptr : &topology->second);
        }
        std::vector<int64_t> enters(m, INT64_MIN);
        for (std::size_t j = 0; j < m; ++j) {
          if (is_neighbor(events[j].kind)) enters[j] = events[j].start_enter;
        }
        const std::vector<int64_t> latest = graph->latest(enters);
        for (std::size_t j = 0; j < m; ++j) {
          events[j].in_neighbors_known = graph->known();
          events[j].latest_enter_of_in_neighbors = latest[j];
        }
      }
      for (std::size_t j = 0; j < m; ++j) {
        take_slots(&reduced[kSlots * j], events[j]);
        // Exscan leaves rank 0's buffer undefined: it has no ranks below.
        if (reduced[kSlots * m] > 0 && rank > 0 && is_scan(events[j].kind)) {
          events[j].latest_enter_below = below[j];
        }
        bus.publish(events[j]);
        ++statistics.collectives;
      }
    }
  }
}

}  // namespace orrery::analyzer

// Collectives of a process's other threads (thread_collectives.h): the
// per-process stream of instances, and its replay through
// replay_collectives over a process trace made of the stream, whose
// events are routed to the location that called each instance.

#include "orrery/analyzer/thread_collectives.h"

#include <algorithm>
#include <memory>
#include <numeric>

#include "orrery/error.h"
#include "orrery/replay/replay_events.h"
#include "orrery/trace/clock.h"
#include "thread_call_paths.h"
#include "vmpi.h"

namespace orrery::analyzer {
namespace {

bool completed(const CollectiveOp& op) { return op.start_call != kNone && op.complete_call != kNone; }

/// Whether an instance synchronizes its communicator's members (what the
/// collective replay pairs across processes).
bool synchronizing(const CollectiveOp& op, const Communicators& comms) {
  return op.kind != CollectiveKind::kOther && comms.size(op.comm) > 1;
}

}  // namespace

void ThreadCollectives::select(LocalTrace& master, const std::vector<LocalTrace>& threads, bool any_rank,
                               const Definitions& definitions, const Communicators& comms, MPI_Comm world) {
  threads_ = &threads;
  stream_.clear();
  active_ = any_rank;
  if (!active_) return;

  // The thread communicators: those on which some rank's other thread
  // started a synchronizing instance, by position in the (global) id order.
  std::vector<uint32_t> ids;
  for (const auto& [id, def] : definitions.comms) ids.push_back(id);
  const auto position = [&](uint32_t comm) {
    return static_cast<std::size_t>(std::lower_bound(ids.begin(), ids.end(), comm) - ids.begin());
  };
  std::vector<int> local(ids.size(), 0), shared(ids.size(), 0);
  for (const LocalTrace& thread : threads) {
    for (const CollectiveOp& op : thread.collectives) {
      if (completed(op) && synchronizing(op, comms) && position(op.comm) < ids.size()) local[position(op.comm)] = 1;
    }
  }
  vmpi::Allreduce(local.data(), shared.data(), static_cast<int>(local.size()), MPI_INT, MPI_MAX, world);
  const auto on_thread_comm = [&](const CollectiveOp& op) {
    const std::size_t at = position(op.comm);
    return at < ids.size() && ids[at] == op.comm && shared[at] != 0;
  };

  // The stream: the MPI thread's instances on thread communicators (but
  // MPI_Init and MPI_Finalize, first and last on every process) and every
  // instance of the other threads, in start order; a location's own order
  // is kept where times tie.
  std::vector<int64_t> starts;
  const auto add = [&](uint32_t location, const LocalTrace& trace, const CollectiveOp& op) {
    stream_.push_back(Entry{location, op});
    starts.push_back(trace.enter_time(op.start_call));
  };
  for (CollectiveOp& op : master.collectives) {
    if (!completed(op) || op.kind == CollectiveKind::kInit || op.kind == CollectiveKind::kFinalize ||
        !synchronizing(op, comms) || !on_thread_comm(op)) {
      continue;
    }
    add(0, master, op);
    // Out of the MPI thread's own replays, on every member alike: no
    // communicator (the ideal-network replay keeps it local) and no
    // completing call (the collective replay, the delay analysis and the
    // critical path skip it).
    op.comm = kNone;
    op.complete_call = kNone;
  }
  for (uint32_t slot = 0; slot < threads.size(); ++slot) {
    for (const CollectiveOp& op : threads[slot].collectives) {
      if (completed(op)) add(slot + 1, threads[slot], op);
    }
  }
  std::vector<uint32_t> order(stream_.size());
  std::iota(order.begin(), order.end(), 0U);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return starts[a] < starts[b]; });
  std::vector<Entry> sorted;
  sorted.reserve(stream_.size());
  for (const uint32_t k : order) sorted.push_back(stream_[k]);
  stream_ = std::move(sorted);
}

void ThreadCollectives::replay(const LocalTrace& master, const Definitions& definitions, const Communicators& comms,
                               const CallTree& tree,
                               const std::vector<std::vector<ThreadSeverities::TeamEntry>>& teams,
                               const std::vector<const EventBus*>& buses, ReplayStatistics& statistics) const {
  if (!active_) return;
  if (stream_.size() > Event::kMaxRef) {
    throw InputError("rank " + std::to_string(master.rank) + " has " + std::to_string(stream_.size()) +
                     " collective instances on its threads, more than the analysis can tell apart");
  }
  // The process trace: per instance an Enter/Leave pair of its completing
  // call (and of its starting call if another), with the instance's index
  // as the Enter's reference; the route says whose call path it is.
  struct Route {
    uint32_t location = 0;
    uint32_t callpath = kNone;
  };
  std::vector<Route> routes;
  routes.reserve(stream_.size());
  LocalTrace process;
  process.rank = master.rank;
  const ClockMapping clock(master.clock_offsets);
  std::vector<std::unique_ptr<ThreadCallPaths>> callpaths(threads_->size() + 1);
  for (const Entry& entry : stream_) {
    const uint32_t location = entry.location;
    const LocalTrace& trace = location == 0 ? master : (*threads_)[location - 1];
    if (!callpaths[location]) {
      const auto* team = location == 0 || location > teams.size() ? nullptr : &teams[location - 1];
      callpaths[location] = std::make_unique<ThreadCallPaths>(trace, location == 0, definitions, tree, team, clock);
    }
    const auto index = static_cast<uint32_t>(routes.size());
    routes.push_back(Route{location, (*callpaths[location])(entry.op.complete_call)});
    const auto call = [&](uint32_t enter) {
      const auto at = static_cast<uint32_t>(process.events.size());
      process.events.push_back(Event::make(trace.enter_time(enter), EventKind::kEnter, index, at + 1));
      process.events.push_back(Event::make(trace.exit_time(enter), EventKind::kLeave, kNone, at));
      return at;
    };
    CollectiveOp op = entry.op;
    op.complete_call = call(entry.op.complete_call);
    op.start_call = entry.op.start_call == entry.op.complete_call ? op.complete_call : call(entry.op.start_call);
    process.collectives.push_back(op);
  }

  EventBus router;
  router.subscribe<CollectiveCompleted>([&](const CollectiveCompleted& event) {
    const Route& route = routes[event.call.callpath];
    if (route.callpath == kNone || route.location >= buses.size()) return;  // no call path: not charged
    CollectiveCompleted placed = event;
    placed.call.callpath = route.callpath;
    buses[route.location]->publish(placed);
  });
  ReplayStatistics replayed;
  replay_collectives(process, definitions, comms, router, replayed, false);
  statistics.collectives += replayed.collectives;
  statistics.collective_mismatches += replayed.collective_mismatches;
}

}  // namespace orrery::analyzer

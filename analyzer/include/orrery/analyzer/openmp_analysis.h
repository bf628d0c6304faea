#pragma once
// The OpenMP analysis of one rank's threads, within the process (no MPI):
// every thread's call paths (added to the rank's call tree), its time by
// class (execution, omp, mpi) and visits; omp_barrier_wait from each team's
// barrier instances replayed within the process (the k-th barrier of a
// parallel region instance on every thread of its team is one instance:
// min(latest arrival, exit(self)) - arrival(self)); omp_idle_threads: the
// master's serial time (outside parallel regions) at its call paths, on
// every worker thread. Nested parallel regions: their time is analyzed on
// every thread, their call paths below the outermost region; barrier waits
// are computed for the outermost team's barriers only (a nested team's
// members are not in the trace), and a thread that served only nested teams
// is not a member of the outermost team.

#include <string>
#include <vector>

#include "orrery/trace/call_tree.h"
#include "orrery/trace/trace.h"
#include "orrery/patterns/pattern.h"
#include "orrery/patterns/registry.h"

namespace orrery::analyzer {

/// The severities of a rank's other threads, one map per thread in the
/// order of Definitions::threads (cube location slots 1, 2, ...).
/// Wait states in them (omp_barrier_wait, ...) are not yet carved out of
/// the time classes: the registry's finish does that per slot.
struct ThreadSeverities {
  std::vector<patterns::SeverityMap> slots;
  /// An outermost parallel region instance of another thread: its enter
  /// (ticks as read, before clock offsets) and the call path it hangs below
  /// (its team's, kNone for a root).
  struct TeamEntry {
    int64_t enter = 0;
    uint32_t parent = kNone;
  };
  /// Per slot, its instances in time order (thread_messages.h maps the
  /// threads' own call paths onto the rank's tree with them).
  std::vector<std::vector<TeamEntry>> teams;
};

/// Analyzes the threads of world rank `rank` (nothing for a rank without
/// threads). Adds the threads' call paths to `tree`, the master thread's
/// omp_barrier_wait to `master` (before the registry's finish, which carves
/// it out of the master's time); returns the other threads' severities,
/// sized to the final tree.
ThreadSeverities analyze_openmp(const std::string& experiment, const Definitions& definitions, uint32_t rank,
                                CallTree& tree, const patterns::PatternRegistry& registry,
                                patterns::SeverityMap& master, double seconds_per_tick);

}  // namespace orrery::analyzer

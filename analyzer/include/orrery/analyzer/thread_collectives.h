#pragma once
// Collective operations called on a process's other threads
// (MPI_THREAD_MULTIPLE).
//
// Any thread may call a collective; the process takes part in the instance
// once, on the thread that called it. MPI requires the collectives of one
// communicator to be called in the same order on every process (on one
// process the program serializes them across its threads), so per process
// and communicator the instances of all its locations, in the order they
// were started, form the sequence that pairs with the other members'.
//
// A communicator on which some rank's other thread started a collective is
// a "thread communicator" (the same on all ranks, by one reduction). Its
// instances on the MPI thread are taken out of the MPI thread's own replays
// (the operation's communicator and completing call are set to kNone, so
// that the collective replay, the delay analysis and the critical path skip
// it and the ideal-network replay keeps it local, on every rank alike;
// MPI_Init and MPI_Finalize stay there) and joined with the other threads' instances
// into one stream per process, in start order. After the OpenMP analysis
// has put every thread's call paths into the rank's tree, that stream is
// replayed exactly as the MPI thread's collectives (replay_collectives over
// a process trace made of the stream) and each instance's
// CollectiveCompleted goes to the patterns of the location that called it,
// at its call path. Members that saw different numbers of instances of a
// communicator fail the analysis ("the traces disagree"), never a wrong
// pairing. A trace without other threads' collectives costs nothing (the
// thread messages' reduction tells).

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "orrery/analyzer/communicators.h"
#include "orrery/analyzer/openmp_analysis.h"
#include "orrery/analyzer/replay.h"
#include "orrery/replay/event_bus.h"
#include "orrery/trace/call_tree.h"
#include "orrery/trace/trace.h"

namespace orrery::analyzer {

/// A rank's collective stream over its threads: selected before the
/// replays, replayed after the OpenMP analysis.
class ThreadCollectives {
 public:
  /// `threads` are the rank's other threads' traces by slot - 1
  /// (ThreadMessages::threads, which must outlive this); `any_rank` whether
  /// any rank's other threads have collectives (ThreadMessages::any_collectives,
  /// the same on all ranks). If so, collective over `world`: finds the
  /// thread communicators, builds this rank's stream and takes its
  /// instances on them out of `master`'s replays. Else nothing.
  void select(LocalTrace& master, const std::vector<LocalTrace>& threads, bool any_rank,
              const Definitions& definitions, const Communicators& comms, MPI_Comm world);

  /// Whether select() found other threads' collectives on some rank (the same on all).
  [[nodiscard]] bool active() const { return active_; }

  /// Collective over `world` when active(). Replays the stream: `buses[0]`
  /// is the MPI thread's bus, `buses[t]` that of thread slot t; `tree` the
  /// rank's final call tree, `teams` the OpenMP analysis's parallel
  /// instances of the threads. Adds to `statistics` (collectives replayed,
  /// communicators whose members disagree).
  void replay(const LocalTrace& master, const Definitions& definitions, const Communicators& comms,
              const CallTree& tree, const std::vector<std::vector<ThreadSeverities::TeamEntry>>& teams,
              const std::vector<const EventBus*>& buses, ReplayStatistics& statistics) const;

  /// Instances in this rank's stream (those of the MPI thread included).
  [[nodiscard]] std::size_t size() const { return stream_.size(); }

 private:
  /// One instance of the stream: its location (0: the MPI thread, t: slot t)
  /// and the operation (the MPI thread's as it was before select()).
  struct Entry {
    uint32_t location = 0;
    CollectiveOp op;
  };

  const std::vector<LocalTrace>* threads_ = nullptr;
  std::vector<Entry> stream_;  ///< in start order
  bool active_ = false;
};

}  // namespace orrery::analyzer

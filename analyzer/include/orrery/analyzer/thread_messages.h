#pragma once
// Point-to-point messages of a process's other threads (MPI_THREAD_MULTIPLE).
//
// MPI matches messages per process, whatever thread posted them: per
// communicator, source process and tag, in the order they were posted. So
// the messages of all of a rank's locations form one stream: the other
// threads' traces are read, every location's sends and receives are merged
// into one process table in posting order (each entry remembering its
// location and its index there) and that table is matched with the other
// processes' (MessageMatching, as for the MPI thread alone).
//
// Messages with another thread at either end ("thread messages") are taken
// out of the MPI thread's own replays: its operations of such messages are
// marked cancelled in its trace, on both sides alike, so that the MPI
// thread's matching pairs exactly its messages with other MPI threads, and
// the delay and critical-path analyses see those only. The thread messages
// are replayed here, after the OpenMP analysis has put every thread's call
// paths into the rank's tree: their replay events (MessageSent,
// MessageReceived, ReceivesCompleted, SendsCompleted) go to the bus of the
// location that posted or completed them, at its call path, with the
// partner thread's times, so Late Sender and Late Receiver are charged to
// the thread that waited.
//
// A trace without thread messages on any rank costs one reduction here (it
// also tells whether any thread has collectives) and nothing else: the MPI
// thread's replays run exactly as before.

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "orrery/trace/call_tree.h"
#include "orrery/analyzer/communicators.h"
#include "orrery/replay/event_bus.h"
#include "orrery/analyzer/message_exchange.h"
#include "orrery/analyzer/openmp_analysis.h"
#include "orrery/trace/trace.h"

namespace orrery::analyzer {

/// MPI calls (other than queries) the measurement saw on threads it did not
/// trace (run.json: measurement.statistics.total.other_thread_mpi_calls:
/// traced with --no-openmp, or on threads other than OpenMP's); 0 if the
/// experiment does not say. Their messages have one side in the trace only.
[[nodiscard]] uint64_t untraced_thread_mpi_calls(const std::string& experiment);

/// The summary's notes about what the trace lacks of the threads ("" if
/// nothing): MPI calls on threads not traced (`untraced_calls`), and
/// communicators created on worker threads that could not be registered
/// (run.json: per rank anomalies.thread_created_communicators), whose
/// events name MPI_COMM_WORLD.
[[nodiscard]] std::string describe_thread_gaps(const std::string& experiment, uint64_t untraced_calls);

/// A rank's thread messages: read and matched before the replays, replayed
/// after the OpenMP analysis.
class ThreadMessages {
 public:
  /// Reads the traces of `rank`'s other threads (Definitions::threads), put
  /// on the time line of `master` (the rank's MPI thread, read already).
  /// Local; throws InputError.
  void read(const std::string& experiment, const Definitions& definitions, const LocalTrace& master);

  /// Collective over `world`. If any rank's threads sent or received
  /// messages: builds the process tables, matches them (on failure `error`
  /// is the text every rank gets, as MessageMatching::build) and marks the
  /// MPI thread's operations of thread messages cancelled in `master`.
  /// Otherwise nothing (active() is false on every rank).
  void match(LocalTrace& master, const Definitions& definitions, const Communicators& comms,
             MPI_Comm world, std::string& error);

  /// Whether match() found thread messages on some rank (the same on all).
  [[nodiscard]] bool active() const { return active_; }
  /// Whether match() found collectives on some rank's other threads (the same on all).
  [[nodiscard]] bool any_collectives() const { return collectives_; }

  /// The traces read of the other threads, by slot - 1 (empty for a thread
  /// without messages and collectives): thread_collectives.h uses them too.
  [[nodiscard]] const std::vector<LocalTrace>& threads() const { return threads_; }

  /// Collective over `world` when active(). Raises the thread messages'
  /// replay events: `buses[0]` is the MPI thread's, `buses[t]` the bus of
  /// thread slot t (Definitions::threads order, from 1). `tree` is the
  /// rank's final call tree, `teams` the OpenMP analysis's parallel
  /// instances of the threads (ThreadSeverities::teams). Returns the number
  /// of thread messages this rank received that found their send.
  uint64_t replay(const LocalTrace& master, const Definitions& definitions, const CallTree& tree,
                  const std::vector<std::vector<ThreadSeverities::TeamEntry>>& teams,
                  const std::vector<const EventBus*>& buses, MPI_Comm world) const;

 private:
  /// An entry of the process table: location (0: the MPI thread, t: thread
  /// slot t) and index in that location's sends or receives.
  struct Entry {
    uint32_t location = 0;
    uint32_t index = 0;
  };

  [[nodiscard]] const LocalTrace& trace_of(const LocalTrace& master, uint32_t location) const {
    return location == 0 ? master : threads_[location - 1];
  }

  std::vector<LocalTrace> threads_;  ///< by slot - 1; empty traces for threads without messages or collectives
  std::vector<Entry> sends_, recvs_; ///< the process table, in posting order
  std::vector<uint8_t> send_is_thread_message_, recv_is_thread_message_;
  MessageMatching matching_;         ///< of the process table
  bool active_ = false;
  bool collectives_ = false;
};

}  // namespace orrery::analyzer

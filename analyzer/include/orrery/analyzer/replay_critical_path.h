#pragma once
// Critical path (Böhme et al., "Characterizing load and communication
// imbalance in large-scale parallel applications", IPDPSW 2012): the chain
// of activities, across processes, that determined the end of the run.
// Found backward from the process whose trace ended last: on a process the
// path runs back in time until the latest wait state before it; there it
// moves to the process that caused the wait, at the moment that process
// arrived (Late Sender: the sender at its send; Late Receiver: the receiver
// at the post of its receive; Wait at Barrier / N x N / Init / Finalize: the
// member that entered last; Late Broadcast: the root; Early Reduce: the last
// contributor), and so on until a process's start. Each process's stretches
// of the path are split over its call paths (folded instances included, at
// the process where they ran), raising CriticalPathFound.
//
// The walk is one token passed from process to process: only the process
// holding it works, the others wait for it. Each hop is one message of
// three values to the partner that caused the wait (for collectives: the
// member that entered last, found by one reduction of O(1) values per
// instance); the wait states themselves come from one exchange of values
// along the messages (MessageMatching), never O(P) per event.

#include <mpi.h>

#include <cstdint>

#include "orrery/analyzer/communicators.h"
#include "orrery/analyzer/event_bus.h"
#include "orrery/analyzer/message_exchange.h"
#include "orrery/analyzer/trace.h"

namespace orrery::analyzer {

/// What the critical-path analysis found (the same on every rank).
struct CriticalPathStatistics {
  uint64_t hops = 0;        ///< moves from one process to another
  uint32_t last_rank = kNone;  ///< the process whose trace ended last (the path's end)
  int64_t length = 0;       ///< ticks on the path (the sum over processes)
  bool complete = true;     ///< false if the walk was cut short (inconsistent times)
};

/// Collective over `world`. Needs the forward replay's send enter times
/// (LocalTrace::send_enters) and the corrected times.
CriticalPathStatistics replay_critical_path(const LocalTrace& trace, const CallTree& tree,
                                            const Definitions& definitions,
                                            const Communicators& comms,
                                            const MessageMatching& matching, MPI_Comm world,
                                            const EventBus& bus);

}  // namespace orrery::analyzer

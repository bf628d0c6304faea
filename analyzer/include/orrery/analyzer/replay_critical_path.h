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
// four values to the partner that caused the wait (for collectives: the
// member that entered last, found by one reduction of O(1) values per
// instance); the wait states themselves come from exchanges of values
// along the messages (MessageMatching), never O(P) per event. A move to a
// partner whose own stretch would send the path straight back is skipped:
// every process tells its partners beforehand where the path goes from
// each of its entry points (a look-ahead of one hop, two values per message
// and per collective instance), the walk stays and notes the partner's
// stretch, and the notes go to their processes in one exchange at the end.
// So a path that bounces between two neighbours costs no messages per bounce.

#include <mpi.h>

#include <cstdint>

#include "orrery/analyzer/communicators.h"
#include "orrery/replay/event_bus.h"
#include "orrery/analyzer/message_exchange.h"
#include "orrery/trace/trace.h"

namespace orrery::analyzer {

/// What the critical-path analysis found (the same on every rank).
struct CriticalPathStatistics {
  uint64_t hops = 0;        ///< moves from one process to another
  uint64_t looked_ahead = 0;  ///< of which skipped by the look-ahead (there and straight back)
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

#pragma once
// The events the replay raises for the patterns: each carries the corrected
// times the patterns need, after the cross-rank exchange has been done once.
// Times are in ticks of the trace's timer (Definitions::timer_resolution).

#include <cstdint>

#include "orrery/trace/trace.h"

namespace orrery::analyzer {

/// An MPI call (or any region instance) with its corrected enter and exit.
struct CallContext {
  uint32_t callpath = kNone;
  int64_t enter = 0;
  int64_t exit = 0;
};

/// Every region instance at its Leave (forward replay, corrected times).
struct RegionExited {
  CallContext call;
  int64_t exclusive = 0;      ///< duration minus the durations of its children
  uint64_t message_bytes = 0; ///< point-to-point bytes moved by this call
  uint32_t messages = 0;      ///< point-to-point messages posted or completed in it
};

/// The region instances of one call path that contained no communication,
/// folded while reading (trace.h): raised once per call path by the forward
/// replay, in addition to RegionExited for the instances kept.
struct RegionTotals {
  uint32_t callpath = kNone;
  uint64_t visits = 0;
  int64_t exclusive = 0;  ///< sum of the instances' exclusive times
};

/// The counts of one call path over the kept region instances, raised once
/// per call path at the end of the forward walk (instead of a MessageSent
/// per message and a visit per RegionExited: these are integers, so their
/// sums do not depend on the order they are added in).
struct CallPathCounts {
  uint32_t callpath = kNone;
  uint64_t visits = 0;          ///< kept instances left (RegionTotals has the folded ones)
  uint64_t sends = 0;           ///< messages posted, not cancelled
  uint64_t bytes_sent = 0;
  uint64_t receives = 0;        ///< messages received
  uint64_t bytes_received = 0;
};

/// A message posted by this rank (at the send call's call path). The
/// forward walk raises none: its sends are counted in CallPathCounts.
struct MessageSent {
  uint32_t callpath = kNone;
  uint64_t bytes = 0;
};

/// A message received by this rank, in the call that completed it, with the
/// enter time of the send call on the sender (forward replay). Not counted
/// by the message counters: whoever raises it raises CallPathCounts too.
struct MessageReceived {
  uint32_t callpath = kNone;
  int64_t call_enter = 0;
  int64_t send_enter = 0;
  uint64_t bytes = 0;
  /// Enter of the call that posted the receive (the receive itself if
  /// blocking, the MPI_Irecv otherwise).
  int64_t post_enter = 0;
};

/// A call that completed one or more receives (Recv, Wait, Waitall, ...):
/// the latest of the matching sends' enter times (forward replay).
struct ReceivesCompleted {
  CallContext call;
  int64_t latest_send_enter = 0;
  uint32_t messages = 0;
};

/// A call that completed one or more sends (Send, Ssend, Wait of an Isend,
/// ...): the latest enter time of the matching receives' posting calls
/// (backward replay).
struct SendsCompleted {
  CallContext call;
  int64_t latest_recv_enter = 0;
  uint32_t messages = 0;
  /// If the same call also completed receives: their latest send enter
  /// (INT64_MIN otherwise), so that waiting is not counted twice.
  int64_t latest_send_enter = INT64_MIN;
};

/// One collective instance, with the times of the other participants
/// reduced over its communicator (replay_collectives.cpp): O(1) values per
/// instance, whatever the group size (docs/design.md §4, "Scale is a contract").
/// For non-blocking collectives `start_enter` is the enter of the start
/// call and `call` is the wait that completed it. "Enter" of a participant
/// is its start enter, "exit" the exit of its completing call.
struct CollectiveCompleted {
  CollectiveKind kind = CollectiveKind::kOther;
  CallContext call;
  int64_t start_enter = 0;
  uint32_t my_rank = 0;       ///< this process's rank in the communicator
  uint32_t participants = 1;  ///< size of the communicator (1: nothing to wait for)
  uint32_t root = kNone;
  int64_t latest_enter = INT64_MIN;   ///< max over all participants of their enter
  int64_t earliest_exit = INT64_MAX;  ///< min over all participants of their exit
  int64_t latest_exit = INT64_MIN;    ///< max over all participants of their exit
  /// Enter of the root (1-to-n, n-to-1 with a valid root; else INT64_MIN).
  int64_t root_enter = INT64_MIN;
  /// Max enter over the participants other than the root (INT64_MIN if none).
  int64_t latest_enter_of_others = INT64_MIN;
  /// Scan/Exscan only: max enter over the ranks below this one (INT64_MIN on
  /// rank 0 and for other kinds).
  int64_t latest_enter_below = INT64_MIN;
  /// Neighbourhood collectives: max enter over this rank's in-neighbours of
  /// the recorded topology (INT64_MIN if none or no topology).
  int64_t latest_enter_of_in_neighbors = INT64_MIN;
  /// Whether this rank's in-neighbours were recorded (else all members count).
  bool in_neighbors_known = false;
  uint64_t bytes_sent = 0;
  uint64_t bytes_received = 0;
  bool nonblocking = false;
  uint32_t comm = kNone;  ///< the communicator (Definitions::comms id)
};

}  // namespace orrery::analyzer

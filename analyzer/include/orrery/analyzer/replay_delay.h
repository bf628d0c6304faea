#pragma once
// Delay analysis (root causes of wait states; Böhme, Geimer, Wolf et al.,
// "Identifying the root causes of wait states in large-scale parallel
// applications", ICPP 2010 / ACM TOPC 2016). Runs after the other replays,
// on the corrected times. For every point-to-point wait state (Late Sender,
// Late Receiver; collectives below):
//   - its synchronization interval on both processes: from their previous
//     message exchange to the synchronizing call (synchronization_interval.h);
//   - the delay: per call path, the time the delaying process spent there
//     beyond the waiting process's time (only the excess counts), and the
//     excess of its own waiting;
//   - short-term costs: the waiting distributed over the delaying call paths
//     in proportion to their delay; the part of the delay that was itself
//     waiting is no root cause: it passes the costs on to the delayer's own
//     wait states in the interval, which become "propagating", and the wait
//     it caused "indirect";
//   - long-term costs: the waiting a wait state propagated into (carried
//     back from later wait states, over as many processes as the chain has)
//     distributed the same way.
// The collective wait states (Wait at Barrier, Wait at N x N, Late
// Broadcast, Early Reduce) are analyzed the same way between each waiter and
// the delayer (the member that entered last; the root of a broadcast; the
// last contributor of a reduction), with the interval since the previous
// instance on the communicator, by reductions over the communicator
// (replay_delay_collectives.cpp); their wait states pass costs on like the
// point-to-point ones.
// Data per wait state stays between the two partners: the waiting process
// sends its interval profile (call path keys and times, bounded by its own
// events in the interval) to the delayer once, in a record (in batches:
// delay_records.cpp, delay_channel.cpp); then the propagated waiting
// travels to the delayers one value per record per round, for the records
// whose delay passes waiting on, round after round until the values settle
// (each round settles one more hop of the longest chain; rounds stop when a
// round moves less than kDelayTolerance of all waiting, or after
// kMaxDelayRounds).

#include <mpi.h>

#include <cstdint>

#include "orrery/analyzer/communicators.h"
#include "orrery/replay/event_bus.h"
#include "orrery/analyzer/message_exchange.h"
#include "orrery/trace/trace.h"

namespace orrery::analyzer {

namespace delay {
struct HandedWaitStates;  // analyzer/src/delay_wait_state.h
}  // namespace delay

/// What the delay analysis did on this rank.
struct DelayStatistics {
  uint64_t wait_states = 0;   ///< point-to-point wait states analyzed
  uint64_t rounds = 0;        ///< propagation rounds (the same on every rank)
  bool converged = true;      ///< false if the round limit cut a chain short
  double unexplained = 0;     ///< ticks of waiting with no delay found in the interval
};

/// The most propagation rounds the analysis runs (hops of a chain of waits).
inline constexpr int kMaxDelayRounds = 64;
/// Rounds stop when the long-term values moved by less than this share of
/// all waiting in the last round.
inline constexpr double kDelayTolerance = 1e-4;

/// Collective over `world` (`tree`: the rank's call tree); raises DelayCostFound (at the delayer) and
/// WaitStateClassified (at the waiter) on `bus`. Needs the forward replay's
/// send enter times (LocalTrace::send_enters). `handed`: the point-to-point
/// wait states the forward replay collected (ReplayOptions::wait_states),
/// taken (moved out) when complete; else they are searched here.
DelayStatistics replay_delay(const LocalTrace& trace, const CallTree& tree,
                             const Definitions& definitions, const Communicators& comms,
                             const MessageMatching& matching, MPI_Comm world,
                             const EventBus& bus, delay::HandedWaitStates* handed = nullptr);

}  // namespace orrery::analyzer

#pragma once
// Timestamp correction, step two: the clock condition. A receive must not
// complete before its send began; where one does (clocks of two nodes
// disagree by more than a message takes), the receive is moved just after
// the send, as the controlled logical clock does (Rabenseifner 1997; Becker,
// Rabenseifner, Wolf et al., IEEE Cluster 2009):
//   forward    every event: c(e) = max(t(e), c(prev) + (1 − slope)·(t(e) − t(prev)))
//              and, at a receive that violates, c = c(send) + min_latency —
//              the jump fades out at `slope` (1 %) of the elapsed time, so
//              events far after a correction keep their times;
//   backward   the jump J is spread over the interval before the receive
//              (J − slope·(c(r) − c(e)), back to the previous correction),
//              so the receive's own call does not absorb it; a send in that
//              interval moves at most as far as its receive allows.
// The send times travel with MessageMatching::to_receivers (forward, until
// no rank's correction changes: chains of violations settle one link per
// round), the receive times with to_senders (once, for the backward limit).
// Runs as its own phase before the forward replay, which then sees the
// corrected times.

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "orrery/analyzer/message_exchange.h"
#include "orrery/analyzer/replay.h"
#include "orrery/trace/trace.h"

namespace orrery::analyzer {

/// How the controlled logical clock corrects.
struct ClockConditionParameters {
  int64_t min_latency = 1000;  ///< ticks a corrected receive ends after its send's enter (1 µs at ns)
  double slope = 0.01;         ///< how fast a correction ramps in (backward) and fades out (forward)
  bool correct = true;         ///< false: count violations only, times untouched
};

/// One rank's corrections.
struct ClockCorrection {
  uint64_t violations = 0;  ///< receives that completed before their send began
  uint64_t corrected = 0;   ///< receives moved (0 when not correcting)
  int64_t moved = 0;        ///< ticks: the jumps summed (the time corrections inserted)
  int64_t max_jump = 0;     ///< ticks: the largest single jump
  int64_t max_shift = 0;    ///< ticks: the largest move of any event
  bool times_changed = false;  ///< the phase moved events (the same on every rank)
};

/// For one rank, given each receive's send enter time (kNoValue: none):
/// the corrected time of every event (the forward pass). Pure; the phase
/// below runs it once per round. `recv_of_event` lists (event index,
/// receive) pairs in event order.
struct ReceiveAt {
  uint32_t event;
  uint32_t recv;
};
void clock_forward(const std::vector<int64_t>& original, const std::vector<ReceiveAt>& receives,
                   const std::vector<int64_t>& send_enters, const ClockConditionParameters& p,
                   std::vector<int64_t>& corrected, ClockCorrection& stats);

/// The backward amortization over `corrected` (in place), given the forward
/// pass's jumps (recomputed from `original`) and, per event, how far it may
/// move at most (a send's enter: its receive's time minus its own; INT64_MAX
/// elsewhere). Updates stats.max_shift.
void clock_backward(const std::vector<int64_t>& original, const std::vector<ReceiveAt>& receives,
                    const std::vector<int64_t>& limits, const ClockConditionParameters& p,
                    std::vector<int64_t>& corrected, ClockCorrection& stats);

/// The phase: collective over `world`. Corrects `trace.events` in place
/// (unless p.correct is false) and returns this rank's corrections. With
/// `times`: unless the phase moved events (times_changed), the message times
/// of its first pass and exchange, which the forward replay can take instead
/// of computing and exchanging them again (ReplayOptions::known_times).
ClockCorrection correct_clock_condition(LocalTrace& trace, const MessageMatching& matching,
                                        MPI_Comm world, const ClockConditionParameters& p,
                                        MessageTimes* times = nullptr);

/// Per rank, on rank 0 (collective over `world`).
std::vector<ClockCorrection> gather_clock_corrections(const ClockCorrection& mine, MPI_Comm world);

}  // namespace orrery::analyzer

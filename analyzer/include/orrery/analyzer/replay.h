#pragma once
// The parallel replay: every analysis rank walks its own trace and re-enacts
// the communication with the other ranks, raising replay events (see
// replay_events.h) on an EventBus for the patterns.
//   forward    the sender's send enter time travels to the receiver of each
//              message; clock-condition violations are corrected here
//   collective every collective instance, exchanged once over its communicator
//   backward   the receiver's post time travels back to the sender of each
//              message (for Late Receiver)
// Messages are matched as MPI matched them: per communicator, peer and tag
// in posting order (message_exchange.h: MessageMatching, built once).

#include <mpi.h>

#include <array>
#include <cstdint>
#include <string>

#include "orrery/analyzer/communicators.h"
#include "orrery/replay/event_bus.h"
#include "orrery/analyzer/message_exchange.h"
#include "orrery/trace/trace.h"

namespace orrery::analyzer {

namespace delay {
struct HandedWaitStates;  // the delay analysis' (analyzer/src/delay_wait_state.h)
}  // namespace delay

/// What the replay found about the data itself (reported as warnings).
struct ReplayStatistics {
  uint64_t clock_violations = 0;  ///< receives that ended before their send began
  int64_t max_violation = 0;      ///< the largest correction, in ticks
  uint64_t messages = 0;          ///< messages received
  uint64_t collectives = 0;       ///< collective instances replayed
  uint64_t unclosed_regions = 0;  ///< regions still open at the end of a trace
  uint64_t unmatched_requests = 0;  ///< request completions without a post
  uint64_t collective_mismatches = 0;  ///< communicators whose members disagree
  /// Incomplete experiments only (tolerated truncation):
  uint64_t collectives_dropped = 0;  ///< instances not every member completed (counted once)
  uint64_t sends_unmatched = 0;      ///< sends whose receive was never recorded
  uint64_t recvs_unmatched = 0;      ///< receives whose send was never recorded
  uint64_t collectives_interrupted = 0;  ///< blocking collective calls a trace ended in
};

/// The counters of ReplayStatistics, each once: the sum over ranks walks this
/// list (max_violation is a maximum, not a count). A field added to the struct
/// without being listed here fails the size check below.
inline constexpr std::array<uint64_t ReplayStatistics::*, 10> kReplayCounters = {
    &ReplayStatistics::clock_violations,      &ReplayStatistics::messages,
    &ReplayStatistics::collectives,           &ReplayStatistics::unclosed_regions,
    &ReplayStatistics::unmatched_requests,    &ReplayStatistics::collective_mismatches,
    &ReplayStatistics::collectives_dropped,   &ReplayStatistics::sends_unmatched,
    &ReplayStatistics::recvs_unmatched,       &ReplayStatistics::collectives_interrupted};
static_assert(sizeof(ReplayStatistics) ==
                  sizeof(int64_t) + kReplayCounters.size() * sizeof(uint64_t),
              "every counter of ReplayStatistics is listed in kReplayCounters");

/// Times at the messages on the current event times, one value per receive,
/// as correct_clock_condition's first pass finds them when it moves nothing.
struct MessageTimes {
  std::vector<int64_t> send_enters;          ///< its send's enter (kNoValue: unmatched)
  std::vector<int64_t> post_enters;  ///< its posting call's enter (receive_post_enters())
};

/// Options of the replay.
struct ReplayOptions {
  bool correct_clock_violations = true;
  /// The message times on the current times, if the caller has them already
  /// (correct_clock_condition's): taken (moved) instead of computed and
  /// exchanged again. Ignored with correct_clock_violations. Given on every
  /// rank or on none (collective).
  MessageTimes* known_times = nullptr;
  /// The walk also raises SendsCompleted, what replay_backward raises (the
  /// receives' posting times travel to the senders before the walk, once the
  /// times are final): the caller then skips the backward replay, and its
  /// passes over the send and receive tables. Each call's event comes at its
  /// Leave, so SendsCompleted interleaves with the other events instead of
  /// following the collective replay's; per call path they come in the same
  /// order. Set on every rank or on none (collective).
  bool raise_sends_completed = false;
  /// With raise_sends_completed (and `definitions`, for the world ranks of
  /// the partners): the walk also collects the delay analysis' Late Senders
  /// and Late Receivers into *wait_states (forward_wait_states.h), for
  /// replay_delay to take instead of searching the message tables again.
  /// Per rank: a rank whose walk gives up leaves it incomplete.
  delay::HandedWaitStates* wait_states = nullptr;
  const Definitions* definitions = nullptr;
};

/// Forward replay; corrects timestamps in place and raises RegionExited,
/// MessageSent, MessageReceived and ReceivesCompleted (and SendsCompleted
/// with ReplayOptions::raise_sends_completed).
void replay_forward(LocalTrace& trace, const MessageMatching& matching, MPI_Comm world,
                    const EventBus& bus, const ReplayOptions& options,
                    ReplayStatistics& statistics);

/// Collective replay over the corrected times; raises CollectiveCompleted.
/// Members that saw different numbers of instances of a communicator count
/// as a mismatch (nothing replayed there); with `tolerate_truncation` the
/// instances every member completed (the first k, k the smallest count) are
/// replayed and the others counted in collectives_dropped.
void replay_collectives(const LocalTrace& trace, const Definitions& definitions,
                        const Communicators& comms, const EventBus& bus,
                        ReplayStatistics& statistics, bool tolerate_truncation = false);

/// Backward replay over the corrected times; raises SendsCompleted.
void replay_backward(const LocalTrace& trace, const MessageMatching& matching, MPI_Comm world,
                     const EventBus& bus);

/// Where a receive's posting time is taken: its posting call's Enter (the
/// post itself outside any call).
inline uint32_t receive_post(const MessageOp& op) { return posting_call(op); }

/// Per receive, the time of receive_post(): what the backward replay sends
/// to the senders.
std::vector<int64_t> receive_post_enters(const LocalTrace& trace);

/// Per send, the receive_post() time at its receiver (kNoValue if none): the
/// forward replay's (LocalTrace::recv_post_enters) when it kept them, else
/// exchanged now (collective: every rank calls it).
std::vector<int64_t> receive_post_enters_at_senders(const LocalTrace& trace,
                                                    const MessageMatching& matching, MPI_Comm world);

}  // namespace orrery::analyzer

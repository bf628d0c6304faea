#pragma once
// A wait state of the delay analysis (delay_model.h) and the forward
// replay's hand-over of the point-to-point ones (forward_wait_states.h):
// light enough for the analysis driver (analysis_run.h) to hold.

#include <cstdint>
#include <utility>
#include <vector>

#include "orrery/replay/delay_events.h"
#include "orrery/trace/trace.h"

namespace orrery::analyzer::delay {

/// One wait state of this rank (the waiting side).
struct WaitState {
  WaitKind kind : 4 = WaitKind::kLateSender;
  /// The waiting call's call path as its Enter holds it (Event::kRefMask:
  /// none; read it with callpath()). The producers read that Enter anyway
  /// (its time): the end of the analysis classifies the wait states without
  /// a lookup in the events (a cache miss each). Beside the kind in 4 bytes.
  uint32_t callpath_ref : Event::kRefBits = Event::kRefMask;
  uint32_t call = kNone;     ///< Enter index of the waiting call
  int64_t waiting = 0;       ///< ticks
  uint32_t op = kNone;       ///< own receive (Late Sender) or send (Late Receiver);
                             ///< kNone for collectives
  uint32_t delayer = kNone;  ///< world rank of the partner that was late
  // What the analysis finds per wait state (the waiting it caused
  // downstream, the share its delayer passed on) lives in vectors beside
  // these: 24 bytes each, the rounds' peak holds millions.

  /// `callpath_ref` of the call whose Enter is `enter`.
  [[nodiscard]] static uint32_t callpath_ref_of(const Event& enter) {
    return enter.kind_and_ref & Event::kRefMask;
  }
  /// The waiting call's call path (Event::ref() of its Enter).
  [[nodiscard]] uint32_t callpath() const {
    return callpath_ref == Event::kRefMask ? kNone : uint32_t{callpath_ref};
  }
};
static_assert(static_cast<unsigned>(WaitKind::kEarlyReduce) < 16, "wait kinds fit in 4 bits");
static_assert(sizeof(WaitState) == 24, "wait states must stay compact");

/// The Late Senders and Late Receivers with their synchronization points,
/// as the forward replay's walk found them (ReplayOptions::wait_states):
/// when `complete`, exactly what find_wait_states would return on the same
/// times (Late Senders in call order, then Late Receivers), so the delay
/// analysis takes them instead of searching the message tables again. Not
/// complete when the walk met what it does not follow (a completing call
/// inside another, a completion outside the call its table names) or did
/// not run with the receivers' posting times: then the delay analysis
/// searches as before.
struct HandedWaitStates {
  bool complete = false;
  std::vector<WaitState> waits;
  std::vector<std::pair<uint32_t, uint32_t>> syncs;  ///< per wait state (find_wait_states)
};

}  // namespace orrery::analyzer::delay

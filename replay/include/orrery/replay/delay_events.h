#pragma once
// The events of the delay analysis (replay_delay.h) for the patterns: the
// costs a delay caused, at the delaying process's call paths, and the
// classes of each wait state at the waiting process's call path. Values are
// in ticks (double: costs are shares of waiting times).

#include <cstdint>

namespace orrery::analyzer {

/// The wait-state pattern a delay caused or a wait belongs to.
enum class WaitKind : uint8_t {
  kLateSender, kLateReceiver, kBarrier, kNxN, kLateBroadcast, kEarlyReduce
};

/// Costs charged to one call path of the delaying process for waits of `kind`.
struct DelayCostFound {
  WaitKind kind = WaitKind::kLateSender;
  uint32_t callpath = 0;
  double short_term = 0;  ///< waiting the delay caused directly
  double long_term = 0;   ///< waiting the direct wait propagated into
};

/// A point-to-point wait state, classified (Böhme et al.).
struct WaitStateClassified {
  WaitKind kind = WaitKind::kLateSender;
  uint32_t callpath = 0;
  double waiting = 0;
  double indirect = 0;     ///< part caused by the partner's own waiting (rest: direct)
  double propagating = 0;  ///< part that caused waiting elsewhere (rest: terminal)
};

}  // namespace orrery::analyzer

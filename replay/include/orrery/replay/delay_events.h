#pragma once
// The events of the delay analysis (replay_delay.h) for the patterns: the
// costs a delay caused, at the delaying process's call paths, and the
// classes of each wait state at the waiting process's call path. Values are
// in ticks (double: costs are shares of waiting times).

#include <cstddef>
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

/// Many DelayCostFound at once, in the order the analysis found them: the
/// point-to-point delays' costs come in batches (one delivery per batch,
/// not per call path of every delay: the communication-only benchmark trace
/// has one per message). The items live until the delivery returns.
struct DelayCostBatch {
  const DelayCostFound* items = nullptr;
  std::size_t count = 0;
};

/// Many WaitStateClassified at once, in the order of the wait states (one
/// delivery per batch, not per wait state). The items live until the
/// delivery returns.
struct WaitStateClassifiedBatch {
  const WaitStateClassified* items = nullptr;
  std::size_t count = 0;
};

}  // namespace orrery::analyzer

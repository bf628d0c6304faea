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

/// Costs charged to one call path of the delaying process for waits of `kind`
/// (one entry of DelayCostsFound).
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

/// Many DelayCostFound at once (the delay analysis publishes its costs so:
/// one delivery per batch, not per cost; it delivers each cost also as a
/// DelayCostFound to that type's subscribers: subscribe to one of the two).
/// A subscriber adds them up in this order, so every sum comes out as with
/// one event each.
struct DelayCostsFound {
  const DelayCostFound* costs = nullptr;
  std::size_t count = 0;
};

/// Many WaitStateClassified at once, in order (as DelayCostsFound; each is
/// also delivered as a WaitStateClassified to that type's subscribers).
struct WaitStatesClassified {
  const WaitStateClassified* waits = nullptr;
  std::size_t count = 0;
};

}  // namespace orrery::analyzer

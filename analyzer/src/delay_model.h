#pragma once
// Internal to the delay analysis (replay_delay.cpp and
// replay_delay_collectives.cpp): wait states on the waiting side, delays on
// the delaying side, and the comparison of two interval profiles.

#include <bit>
#include <cstdint>
#include <utility>
#include <vector>

#include "orrery/analyzer/communicators.h"
#include "orrery/analyzer/delay_events.h"
#include "orrery/analyzer/event_bus.h"
#include "orrery/analyzer/replay_delay.h"
#include "orrery/analyzer/synchronization_interval.h"
#include "orrery/analyzer/trace.h"

namespace orrery::analyzer::delay {

// Doubles travel through the int64 message exchange as their bits. kNoValue
// (INT64_MIN) is the bit pattern of -0.0, which no value here ever takes
// (all are >= +0.0).
inline int64_t to_bits(double value) { return std::bit_cast<int64_t>(value); }
inline double from_bits(int64_t bits) { return std::bit_cast<double>(bits); }

/// One wait state of this rank (the waiting side).
struct WaitState {
  WaitKind kind = WaitKind::kLateSender;
  uint32_t call = kNone;     ///< Enter index of the waiting call
  int64_t waiting = 0;       ///< ticks
  uint32_t op = kNone;       ///< own receive (Late Sender) or send (Late Receiver); kNone for collectives
  uint32_t delayer = kNone;  ///< world rank of the partner that was late
  double propagated = 0;     ///< waiting it caused downstream (long-term), ticks
  double passed_on = 0;      ///< waiting of later waits it caused directly
  double indirect_fraction = 0;
};

/// A wait state another rank suffered because this one was late (the
/// delaying side), with the delay found in the interval.
struct Delay {
  WaitKind kind = WaitKind::kLateSender;
  double waiting = 0;                              ///< of the waiter, ticks
  std::vector<std::pair<uint32_t, double>> excess; ///< (own call path, delay)
  double excess_waiting = 0;                       ///< delay that was own waiting
  double total = 0;                                ///< sum of all delay
  std::vector<std::pair<uint32_t, int64_t>> waits; ///< own wait states in the interval
  int64_t waits_total = 0;
  double propagated = 0;                           ///< the waiter's long-term waiting
};

/// The delay of this rank (profile `mine`) against a waiter's profile
/// (`theirs`: call path key, ticks, sorted by key; `their_waiting`).
Delay compare(const IntervalProfile& mine, const std::vector<uint64_t>& keys,
              const std::vector<std::pair<uint64_t, int64_t>>& theirs, int64_t their_waiting);

/// Shares `amount` out over the delay's own wait states by their waiting.
template <class Apply>
void share_over_waits(const Delay& delay, double amount, Apply apply) {
  if (delay.waits_total <= 0 || amount <= 0) return;
  for (const auto& [wait, ticks] : delay.waits) {
    apply(wait, amount * static_cast<double>(ticks) / static_cast<double>(delay.waits_total));
  }
}

/// A collective instance as a synchronization point of a point-to-point pair.
struct CollectiveSync {
  uint32_t leave = kNone;  ///< Leave index of its completing call
  uint32_t comm = kNone;
  uint32_t ordinal = 0;    ///< its position among the communicator's instances
};

/// The collective half of the delay analysis: Wait at Barrier, Wait at
/// N x N, Late Broadcast, Early Reduce. Every step is collective over each
/// communicator, by reductions of O(1) values per instance plus the
/// delayer's interval profile (bounded by its own events), never O(P).
class CollectiveDelays {
 public:
  CollectiveDelays(const LocalTrace& trace, const Definitions& definitions,
                   const Communicators& comms);
  ~CollectiveDelays();
  CollectiveDelays(const CollectiveDelays&) = delete;
  CollectiveDelays& operator=(const CollectiveDelays&) = delete;
  /// Finds this rank's collective wait states and their delayers; appends
  /// the wait states to `waits`.
  void find_waits(std::vector<WaitState>& waits);
  /// The delayer's interval profile goes to the waiters, who find their
  /// delay against it.
  void compare_intervals(IntervalProfiler& profiler, const std::vector<uint64_t>& keys);
  /// One propagation round: the delayers' shares of (waiting + propagated)
  /// that their own waiting explains, added to `next` per wait state (and,
  /// if `passed_on`, the share of the waiting alone to it).
  void propagate(const std::vector<WaitState>& waits, std::vector<double>& next,
                 std::vector<double>* passed_on);
  /// Publishes the costs at the delayers' call paths.
  void publish_costs(const std::vector<WaitState>& waits, const EventBus& bus,
                     DelayStatistics& statistics);
  /// The last collective call before `enter` on a communicator that holds
  /// world rank `peer` (leave kNone if none among the last few), for
  /// point-to-point intervals.
  [[nodiscard]] CollectiveSync last_sync_with(uint32_t peer, uint32_t enter) const;
  /// The Leave index of this rank's `ordinal`-th instance on `comm` (kNone if none).
  [[nodiscard]] uint32_t leave_of(uint32_t comm, std::size_t ordinal) const;

 private:
  struct Instance;
  const LocalTrace& trace_;
  const Definitions& definitions_;
  const Communicators& comms_;
  /// Per communicator (id order), the instances replayed there.
  std::vector<std::pair<uint32_t, std::vector<Instance>>> by_comm_;
  /// Every collective call (Leave index, comm, ordinal), in order.
  std::vector<CollectiveSync> sync_points_;
  /// Sorted members per communicator (for last_sync_with).
  std::vector<std::pair<uint32_t, std::vector<uint32_t>>> members_;
};

}  // namespace orrery::analyzer::delay

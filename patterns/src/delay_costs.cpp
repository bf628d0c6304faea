// The delay-cost metrics (root causes; docs/design.md §4 `delay_*`) and the
// wait-state classes (`wait_direct`, `wait_indirect`, `wait_propagating`,
// `wait_terminal`). The delay analysis (analyzer replay_delay.h) raises
// DelayCostFound at the delaying process's call paths and
// WaitStateClassified at the waiting one's; these patterns only add them up.
// Aggregate parents hold 0. None of these is a time category or a wait
// state of the time tree (MetricKind::kCounter): they re-attribute waiting
// that the wait-state metrics already count.

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "all_patterns.h"
#include "orrery/replay/delay_events.h"

namespace orrery::patterns {
namespace {

using analyzer::DelayCostFound;
using analyzer::DelayCostsFound;
using analyzer::WaitKind;
using analyzer::WaitStateClassified;
using analyzer::WaitStatesClassified;

/// A metric that only groups its children (0 itself).
class Aggregate final : public Pattern {
 public:
  explicit Aggregate(MetricInfo info) : info_(std::move(info)) {}
  [[nodiscard]] MetricInfo info() const override { return info_; }

 private:
  MetricInfo info_;
};

/// The delay-cost patterns of one registry by wait kind (short-term,
/// long-term), so that one subscription per bus routes each DelayCostFound
/// to its two rows: twelve handlers that each looked at every event and
/// kept one in six cost more than adding the values up. The analysis
/// publishes the costs in batches (DelayCostsFound), handled in order.
struct DelayCostRows {
  std::array<std::array<const Pattern*, 2>, 6> by_kind{};  ///< [WaitKind][long_term]
  const analyzer::EventBus* routed = nullptr;              ///< the bus with the router

  /// Adds a batch of costs, in order (each value as one add: the sums stay
  /// the same bits as with one event each). The rows' storage is looked up
  /// once per batch.
  void add(const PatternContext& context, const DelayCostFound* costs, std::size_t count) const {
    SeverityMap& map = context.severities;
    const std::size_t callpaths = map.callpaths();
    if (callpaths == 0) return;
    std::array<std::array<double*, 2>, 6> cells{};  // per kind and term, nullptr: no pattern
    for (std::size_t kind = 0; kind < by_kind.size(); ++kind) {
      for (std::size_t term = 0; term < 2; ++term) {
        const Pattern* pattern = by_kind[kind][term];
        if (pattern != nullptr) cells[kind][term] = map.cell(pattern->row(), 0);
      }
    }
    const double seconds_per_tick = context.seconds_per_tick;
    for (std::size_t k = 0; k < count; ++k) {
      const DelayCostFound& e = costs[k];
      const auto kind = static_cast<std::size_t>(e.kind);
      if (kind >= cells.size() || e.callpath >= callpaths) continue;
      double* const short_term = cells[kind][0];
      double* const long_term = cells[kind][1];
      if (short_term != nullptr && e.short_term > 0) {
        short_term[e.callpath] += e.short_term * seconds_per_tick;
      }
      if (long_term != nullptr && e.long_term > 0) {
        long_term[e.callpath] += e.long_term * seconds_per_tick;
      }
    }
  }
};

/// Short-term or long-term costs of the delays behind one wait-state pattern.
class DelayCost final : public Pattern {
 public:
  DelayCost(MetricInfo info, WaitKind kind, bool long_term, std::shared_ptr<DelayCostRows> rows)
      : info_(std::move(info)), rows_(std::move(rows)) {
    rows_->by_kind.at(static_cast<std::size_t>(kind))[long_term ? 1 : 0] = this;
  }
  [[nodiscard]] MetricInfo info() const override { return info_; }
  void attach(PatternContext& context) override {
    if (rows_->routed == &context.bus) return;  // a sibling routes this bus's costs
    rows_->routed = &context.bus;
    const auto* ctx = &context;
    context.bus.subscribe<DelayCostsFound>([rows = rows_, ctx](const DelayCostsFound& batch) {
      rows->add(*ctx, batch.costs, batch.count);
    });
  }

 private:
  MetricInfo info_;
  std::shared_ptr<DelayCostRows> rows_;
};

/// Which part of a classified wait a class takes.
enum class WaitClass { kDirect, kIndirect, kPropagating, kTerminal };

/// The four wait-state class patterns of one registry, so that one
/// subscription per bus adds each classified wait to its four rows (as the
/// delay costs' router).
struct WaitClassRows {
  std::array<const Pattern*, 4> by_class{};  ///< [WaitClass]
  const analyzer::EventBus* routed = nullptr;

  /// Adds a batch of classified waits, in order (as DelayCostRows::add).
  void add(const PatternContext& context, const WaitStateClassified* waits,
           std::size_t count) const {
    SeverityMap& map = context.severities;
    const std::size_t callpaths = map.callpaths();
    if (callpaths == 0) return;
    // A missing class pattern adds into a scratch row instead (no check per wait).
    std::vector<double> scratch;
    std::array<double*, 4> cells{};
    for (std::size_t c = 0; c < by_class.size(); ++c) {
      if (by_class[c] != nullptr) {
        cells[c] = map.cell(by_class[c]->row(), 0);
      } else {
        scratch.resize(callpaths, 0.0);
        cells[c] = scratch.data();
      }
    }
    const auto [direct, indirect, propagating, terminal] = cells;
    const double seconds_per_tick = context.seconds_per_tick;
    for (std::size_t k = 0; k < count; ++k) {
      const WaitStateClassified& e = waits[k];
      const uint32_t at = e.callpath;
      if (at >= callpaths) continue;
      if (e.waiting - e.indirect > 0) direct[at] += (e.waiting - e.indirect) * seconds_per_tick;
      if (e.indirect > 0) indirect[at] += e.indirect * seconds_per_tick;
      if (e.propagating > 0) propagating[at] += e.propagating * seconds_per_tick;
      if (e.waiting - e.propagating > 0) {
        terminal[at] += (e.waiting - e.propagating) * seconds_per_tick;
      }
    }
  }
};

class WaitClassMetric final : public Pattern {
 public:
  WaitClassMetric(MetricInfo info, WaitClass part, std::shared_ptr<WaitClassRows> rows)
      : info_(std::move(info)), rows_(std::move(rows)) {
    rows_->by_class.at(static_cast<std::size_t>(part)) = this;
  }
  [[nodiscard]] MetricInfo info() const override { return info_; }
  void attach(PatternContext& context) override {
    if (rows_->routed == &context.bus) return;  // a sibling routes this bus's classes
    rows_->routed = &context.bus;
    const auto* ctx = &context;
    context.bus.subscribe<WaitStatesClassified>(
        [rows = rows_, ctx](const WaitStatesClassified& batch) {
          rows->add(*ctx, batch.waits, batch.count);
        });
  }

 private:
  MetricInfo info_;
  std::shared_ptr<WaitClassRows> rows_;
};

MetricInfo sec(const char* name, const char* display, const char* parent, std::string description,
               std::string diagnosis) {
  return MetricInfo{name, display, "sec", parent, std::move(description), std::move(diagnosis),
                    MetricKind::kCounter};
}

/// One pattern's delay costs: the aggregate and its two children.
void add_pattern_costs(const std::function<void(std::unique_ptr<Pattern>)>& add,
                       const std::shared_ptr<DelayCostRows>& rows, const std::string& name,
                       const std::string& display, const std::string& parent,
                       const std::string& waits, WaitKind kind, const std::string& advice) {
  const std::string aggregate = "delay_" + name;
  add(std::make_unique<Aggregate>(
      MetricInfo{aggregate, "Delay Costs: " + display, "sec", parent,
                 "Costs of the delays that caused " + waits +
                     " waits (aggregate: see its short-term and long-term parts).",
                 advice, MetricKind::kCounter}));
  add(std::make_unique<DelayCost>(
      MetricInfo{aggregate + "_short_term", "Short-term", "sec", aggregate,
                 "The " + waits +
                     " waiting this call path caused directly: the time this process spent here "
                     "beyond its waiting partner since their previous synchronization, as a "
                     "share of the partner's waiting.",
                 "This call path is a root cause: " + advice, MetricKind::kCounter},
      kind, false, rows));
  add(std::make_unique<DelayCost>(
      MetricInfo{aggregate + "_long_term", "Long-term", "sec", aggregate,
                 "The waiting that the " + waits +
                     " waits caused by this call path propagated into on further processes "
                     "(through their messages and collectives), traced back to this delay.",
                 "Removing this delay would also remove waiting several hops away: " + advice,
                 MetricKind::kCounter},
      kind, true, rows));
}

}  // namespace

void add_delay_metrics(const std::function<void(std::unique_ptr<Pattern>)>& add) {
  const std::string balance =
      "balance the work of this call path across processes, or move it out of the "
      "interval before the synchronization.";
  const auto rows = std::make_shared<DelayCostRows>();
  const auto classes = std::make_shared<WaitClassRows>();
  add(std::make_unique<Aggregate>(sec(
      "delay", "Delay Costs", "",
      "Root causes of wait states (Böhme et al., 2010): time a process spent beyond its "
      "partners before a synchronization, at the call paths where it spent it, weighted by the "
      "waiting it caused elsewhere (aggregate).",
      "Call paths with high delay costs are where the waiting elsewhere comes from: fix them "
      "first.")));
  add(std::make_unique<Aggregate>(sec("delay_mpi", "MPI", "delay",
                                      "Delay costs of MPI wait states (aggregate).", balance)));
  add(std::make_unique<Aggregate>(sec("delay_p2p", "Point-to-point", "delay_mpi",
                                      "Delay costs of point-to-point wait states (aggregate).",
                                      balance)));
  add_pattern_costs(add, rows, "late_sender", "Late Sender", "delay_p2p", "Late Sender",
                    WaitKind::kLateSender, balance);
  add_pattern_costs(add, rows, "late_receiver", "Late Receiver", "delay_p2p", "Late Receiver",
                    WaitKind::kLateReceiver, balance);
  add(std::make_unique<Aggregate>(sec("delay_collective", "Collective", "delay_mpi",
                                      "Delay costs of collective wait states (aggregate).",
                                      balance)));
  add_pattern_costs(add, rows, "barrier", "Wait at Barrier", "delay_collective", "Wait at Barrier",
                    WaitKind::kBarrier, balance);
  add_pattern_costs(add, rows, "nxn", "Wait at N x N", "delay_collective", "Wait at N x N",
                    WaitKind::kNxN, balance);
  add_pattern_costs(add, rows, "late_broadcast", "Late Broadcast", "delay_collective",
                    "Late Broadcast", WaitKind::kLateBroadcast,
                    "the root is late: " + balance);
  add_pattern_costs(add, rows, "early_reduce", "Early Reduce", "delay_collective", "Early Reduce",
                    WaitKind::kEarlyReduce, "the contributors are late: " + balance);
  add(std::make_unique<WaitClassMetric>(
      sec("wait_direct", "Direct Wait States", "",
          "Point-to-point waiting (Late Sender + Late Receiver) caused by a delay of the partner "
          "itself: it was computing (or in non-waiting calls) while this process waited.",
          "Look at the partner's delay costs: that is where the time went."),
      WaitClass::kDirect, classes));
  add(std::make_unique<WaitClassMetric>(
      sec("wait_indirect", "Indirect Wait States", "",
          "Point-to-point waiting the partner passed on: it was itself waiting in the interval "
          "before the synchronization.",
          "The root cause is further away: follow the long-term delay costs, not the partner."),
      WaitClass::kIndirect, classes));
  add(std::make_unique<WaitClassMetric>(
      sec("wait_propagating", "Propagating Wait States", "",
          "Point-to-point waiting that caused further waiting on other processes (it delayed "
          "what this process owed them).",
          "Removing it (by removing its root cause) gains more than its own time."),
      WaitClass::kPropagating, classes));
  add(std::make_unique<WaitClassMetric>(
      sec("wait_terminal", "Terminal Wait States", "",
          "Point-to-point waiting that caused no further waiting.",
          "Its cost ends here: only its own time is at stake."),
      WaitClass::kTerminal, classes));
}

}  // namespace orrery::patterns

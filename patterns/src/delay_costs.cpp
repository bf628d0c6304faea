// The delay-cost metrics (root causes; docs/design.md §4 `delay_*`) and the
// wait-state classes (`wait_direct`, `wait_indirect`, `wait_propagating`,
// `wait_terminal`). The delay analysis (analyzer replay_delay.h) raises
// DelayCostFound at the delaying process's call paths (most in batches,
// DelayCostBatch) and WaitStateClassified at the waiting one's (in batches,
// WaitStateClassifiedBatch); these patterns only add them up.
// Aggregate parents hold 0. None of these is a time category or a wait
// state of the time tree (MetricKind::kCounter): they re-attribute waiting
// that the wait-state metrics already count.

#include <array>
#include <memory>
#include <string>
#include <utility>

#include "all_patterns.h"
#include "orrery/replay/delay_events.h"

namespace orrery::patterns {
namespace {

using analyzer::DelayCostBatch;
using analyzer::DelayCostFound;
using analyzer::WaitKind;
using analyzer::WaitStateClassified;
using analyzer::WaitStateClassifiedBatch;

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
/// kept one in six cost more than adding the values up.
struct DelayCostRows {
  std::array<std::array<const Pattern*, 2>, 6> by_kind{};  ///< [WaitKind][long_term]
  const analyzer::EventBus* routed = nullptr;              ///< the bus with the router
};

/// Adds one cost to its kind's two rows.
void add_cost(const DelayCostRows& rows, const PatternContext& ctx, const DelayCostFound& e) {
  const auto kind = static_cast<std::size_t>(e.kind);
  if (kind >= rows.by_kind.size()) return;
  const auto& [short_term, long_term] = rows.by_kind[kind];
  if (short_term != nullptr && e.short_term > 0) {
    ctx.severities.add(short_term->row(), e.callpath, e.short_term * ctx.seconds_per_tick);
  }
  if (long_term != nullptr && e.long_term > 0) {
    ctx.severities.add(long_term->row(), e.callpath, e.long_term * ctx.seconds_per_tick);
  }
}

/// Adds a batch of costs. A run of costs of one kind at one call path (the
/// same work before every message of a loop) keeps its two cells' values
/// in registers: the same additions, in the same order, as add_cost.
void add_costs(const DelayCostRows& rows, const PatternContext& ctx, const DelayCostBatch& batch) {
  const std::size_t callpaths = ctx.severities.callpaths();
  const double seconds_per_tick = ctx.seconds_per_tick;
  for (std::size_t k = 0; k < batch.count;) {
    const DelayCostFound& first = batch.items[k];
    std::size_t end = k + 1;
    while (end < batch.count && batch.items[end].kind == first.kind &&
           batch.items[end].callpath == first.callpath) {
      ++end;
    }
    const auto kind = static_cast<std::size_t>(first.kind);
    if (kind >= rows.by_kind.size() || first.callpath >= callpaths) {
      k = end;
      continue;
    }
    std::array<double, 2> unused{};  // a part nobody registered
    std::array<double*, 2> cells{};
    for (std::size_t part = 0; part < 2; ++part) {
      const Pattern* pattern = rows.by_kind[kind][part];
      cells[part] = pattern == nullptr ? &unused[part] : ctx.severities.cell(pattern->row(), first.callpath);
    }
    double short_term = *cells[0], long_term = *cells[1];
    for (; k < end; ++k) {
      const DelayCostFound& e = batch.items[k];
      if (e.short_term > 0) short_term += e.short_term * seconds_per_tick;
      if (e.long_term > 0) long_term += e.long_term * seconds_per_tick;
    }
    *cells[0] = short_term;
    *cells[1] = long_term;
  }
}

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
    context.bus.subscribe<DelayCostFound>(
        [rows = rows_, ctx](const DelayCostFound& e) { add_cost(*rows, *ctx, e); });
    // The point-to-point delays' costs come in batches: one delivery each.
    context.bus.subscribe<DelayCostBatch>(
        [rows = rows_, ctx](const DelayCostBatch& batch) { add_costs(*rows, *ctx, batch); });
  }

 private:
  MetricInfo info_;
  std::shared_ptr<DelayCostRows> rows_;
};

/// Which part of a classified wait a class takes.
enum class WaitClass { kDirect, kIndirect, kPropagating, kTerminal };

/// The four wait-class patterns of one registry, so that one subscription
/// per bus adds each batch to all four rows in one pass: four independent
/// sums per wait state instead of four passes that each wait for their
/// previous addition to the same cell.
struct WaitClassRows {
  std::array<const Pattern*, 4> by_class{};  ///< [WaitClass]
  const analyzer::EventBus* routed = nullptr;  ///< the bus with the router
};

/// Adds a batch to the four rows. A run of wait states at one call path
/// (all receives of a loop) keeps the four cells' values in registers: the
/// same additions, in the same order, as one cell += per wait state.
void add_classes(const WaitClassRows& rows, const PatternContext& ctx,
                 const WaitStateClassifiedBatch& batch) {
  const std::size_t callpaths = ctx.severities.callpaths();
  if (callpaths == 0) return;
  std::array<double*, 4> cells{};
  std::array<double, 4> unused{};  // a class nobody registered
  const double seconds_per_tick = ctx.seconds_per_tick;
  for (std::size_t k = 0; k < batch.count;) {
    const uint32_t callpath = batch.items[k].callpath;
    std::size_t end = k + 1;
    while (end < batch.count && batch.items[end].callpath == callpath) ++end;
    if (callpath >= callpaths) {
      k = end;
      continue;
    }
    for (std::size_t c = 0; c < cells.size(); ++c) {
      cells[c] = rows.by_class[c] == nullptr ? &unused[c]
                                             : ctx.severities.cell(rows.by_class[c]->row(), callpath);
    }
    double direct = *cells[0], indirect = *cells[1], propagating = *cells[2], terminal = *cells[3];
    for (; k < end; ++k) {
      const WaitStateClassified& e = batch.items[k];
      if (e.waiting - e.indirect > 0) direct += (e.waiting - e.indirect) * seconds_per_tick;
      if (e.indirect > 0) indirect += e.indirect * seconds_per_tick;
      if (e.propagating > 0) propagating += e.propagating * seconds_per_tick;
      if (e.waiting - e.propagating > 0) terminal += (e.waiting - e.propagating) * seconds_per_tick;
    }
    *cells[0] = direct;
    *cells[1] = indirect;
    *cells[2] = propagating;
    *cells[3] = terminal;
  }
}

class WaitClassMetric final : public Pattern {
 public:
  WaitClassMetric(MetricInfo info, WaitClass part, std::shared_ptr<WaitClassRows> rows)
      : info_(std::move(info)), rows_(std::move(rows)) {
    rows_->by_class.at(static_cast<std::size_t>(part)) = this;
  }
  [[nodiscard]] MetricInfo info() const override { return info_; }
  void attach(PatternContext& context) override {
    if (rows_->routed == &context.bus) return;  // a sibling adds this bus's classes
    rows_->routed = &context.bus;
    const auto* ctx = &context;
    context.bus.subscribe<WaitStateClassifiedBatch>(
        [rows = rows_, ctx](const WaitStateClassifiedBatch& batch) { add_classes(*rows, *ctx, batch); });
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

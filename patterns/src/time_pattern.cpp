// Time and visits: every region instance's exclusive time goes to the time
// category of its region; at the end the waiting time that wait-state
// patterns found at a call path is carved out of that call path's
// categories, so that values are exclusive along the metric tree too.

#include <algorithm>
#include <string>

#include "all_patterns.h"
#include "orrery/replay/replay_events.h"
#include "orrery/patterns/region_class.h"
#include "orrery/patterns/registry.h"

namespace orrery::patterns {
namespace {

using analyzer::CallPathCounts;
using analyzer::RegionExited;
using analyzer::RegionTotals;

/// A category of the time tree; filled by TimePattern, not by itself.
class CategoryMetric final : public Pattern {
 public:
  explicit CategoryMetric(MetricInfo info) : info_(std::move(info)) {}
  [[nodiscard]] MetricInfo info() const override { return info_; }

 private:
  MetricInfo info_;
};

class TimePattern final : public Pattern {
 public:
  [[nodiscard]] MetricInfo info() const override {
    return {"time", "Time", "sec", "",
            "Total time of all call paths: execution plus the measurement's overhead.",
            "Start here: expand the tree to see where the time went and which part of it was "
            "waiting.",
            MetricKind::kCategory};
  }

  void attach(PatternContext& context) override {
    const auto* ctx = &context;
    cells_.clear();  // they point into this context's severities
    context.bus.subscribe<RegionExited>([this, ctx](const RegionExited& e) {
      // Per kept region instance: the same add to the same cell as
      // severities.add(category_row(...), ...), through a cached pointer.
      const std::size_t variant = e.messages > 0 ? (e.message_bytes > 0 ? 2 : 1) : 0;
      const std::size_t slot = static_cast<std::size_t>(e.call.callpath) * 3 + variant;
      const double seconds = static_cast<double>(e.exclusive) * ctx->seconds_per_tick;
      if (slot < cells_.size() && cells_[slot] != nullptr) {
        *cells_[slot] += seconds;
      } else {
        add_uncached(*ctx, slot, e, seconds);
      }
    });
    context.bus.subscribe<RegionTotals>([this, ctx](const RegionTotals& e) {
      ctx->severities.add(category_row(*ctx, e.callpath, false, false), e.callpath,
                          static_cast<double>(e.exclusive) * ctx->seconds_per_tick);
    });
  }

  void finish(PatternContext& context) override {
    const PatternRegistry& registry = context.registry;
    std::vector<std::size_t> waits, categories;
    for (const auto& pattern : registry.patterns()) {
      const MetricInfo info = pattern->info();
      if (info.kind == MetricKind::kWaitState) waits.push_back(pattern->row());
      if (info.kind == MetricKind::kCategory) categories.push_back(pattern->row());
    }
    SeverityMap& values = context.severities;
    for (uint32_t cp = 0; cp < values.callpaths(); ++cp) {
      double waiting = 0;
      for (std::size_t row : waits) waiting += values.get(row, cp);
      if (waiting <= 0) continue;
      // Take the waiting time from the categories that hold this call
      // path's time, largest first (normally there is exactly one).
      std::vector<std::size_t> order = categories;
      std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return values.get(a, cp) > values.get(b, cp);
      });
      for (std::size_t row : order) {
        const double take = std::min(waiting, std::max(0.0, values.get(row, cp)));
        values.add(row, cp, -take);
        waiting -= take;
        if (waiting <= 0) break;
      }
      if (waiting > 0) values.add(order.front(), cp, -waiting);
    }
  }

 private:
  std::size_t category_row(const PatternContext& context, uint32_t callpath, bool has_messages,
                           bool moves_data) {
    // Cached per call path and variant: classification is by name. Inline
    // for the hit (every kept region instance); the miss is out of line.
    const std::size_t variant = has_messages ? (moves_data ? 2 : 1) : 0;
    const std::size_t slot = static_cast<std::size_t>(callpath) * 3 + variant;
    if (slot < cache_.size() && cache_[slot] != kUnknown) return cache_[slot];
    return classify(context, slot, callpath, has_messages, moves_data);
  }
  [[gnu::noinline]] std::size_t classify(const PatternContext& context, std::size_t slot,
                                         uint32_t callpath, bool has_messages, bool moves_data) {
    if (slot >= cache_.size()) cache_.resize(std::max(context.tree.size() * 3, slot + 1), kUnknown);
    cache_[slot] = lookup(context, callpath, has_messages, moves_data);
    return cache_[slot];
  }
  static std::size_t lookup(const PatternContext& context, uint32_t callpath, bool has_messages,
                            bool moves_data) {
    const uint32_t region = context.tree.region(callpath);
    static const analyzer::RegionDef unknown{};
    const analyzer::RegionDef& def =
        region < context.definitions.regions.size() ? context.definitions.regions[region] : unknown;
    return context.registry.row(time_category(def, has_messages, moves_data));
  }

  /// The first instance of a call path and variant: its category's cell,
  /// kept in cells_ unless the call path is outside the severities.
  [[gnu::noinline]] void add_uncached(const PatternContext& context, std::size_t slot, const RegionExited& e,
                                      double seconds) {
    const uint32_t callpath = e.call.callpath;
    const std::size_t category = category_row(context, callpath, e.messages > 0, e.message_bytes > 0);
    SeverityMap& values = context.severities;
    if (callpath >= values.callpaths()) {
      values.add(category, callpath, seconds);
      return;
    }
    if (slot >= cells_.size()) cells_.resize(std::max(context.tree.size() * 3, slot + 1), nullptr);
    cells_[slot] = values.cell(category, callpath);
    *cells_[slot] += seconds;
  }

  static constexpr std::size_t kUnknown = ~std::size_t{0};
  std::vector<std::size_t> cache_;
  /// Per call path and variant (slot as in category_row): its time cell.
  std::vector<double*> cells_;
};

class VisitsPattern final : public Pattern {
 public:
  [[nodiscard]] MetricInfo info() const override {
    return {"visits", "Visits", "occ", "", "Number of times a call path was entered.",
            "Many visits of a short call path mean per-call overheads add up: batch the work "
            "or aggregate small messages.",
            MetricKind::kCounter};
  }
  void attach(PatternContext& context) override {
    const auto* ctx = &context;
    // Counted by the forward walk per call path (exact: integer sums).
    context.bus.subscribe<CallPathCounts>([this, ctx](const CallPathCounts& e) {
      ctx->severities.add(row(), e.callpath, static_cast<double>(e.visits));
    });
    context.bus.subscribe<RegionTotals>([this, ctx](const RegionTotals& e) {
      ctx->severities.add(row(), e.callpath, static_cast<double>(e.visits));
    });
  }
};

}  // namespace

std::unique_ptr<Pattern> make_category(MetricInfo info) {
  return std::make_unique<CategoryMetric>(std::move(info));
}
std::unique_ptr<Pattern> make_time() { return std::make_unique<TimePattern>(); }
std::unique_ptr<Pattern> make_visits() { return std::make_unique<VisitsPattern>(); }

}  // namespace orrery::patterns

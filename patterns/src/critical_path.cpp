// The critical-path metrics (docs/design.md §4 `critical_path`,
// `critical_path_imbalance`, `performance_impact`). The analyzer's backward
// walk (replay_critical_path.h) raises CriticalPathFound per call path of
// each process on the path, in batches (CriticalPathBatch); the split into
// the part above the call path's mean and the performance impact need every
// process's time of the call path, so the analyzer derives them on the
// master after the merge
// (analyzer balance_metrics.h). None of these is a time category
// (MetricKind::kCounter): they re-attribute time the time tree counts.

#include <utility>

#include "all_patterns.h"
#include "orrery/replay/critical_path_events.h"

namespace orrery::patterns {
namespace {

using analyzer::CriticalPathBatch;
using analyzer::CriticalPathFound;


class CriticalPath final : public Pattern {
 public:
  [[nodiscard]] MetricInfo info() const override {
    return {"critical_path", "Critical Path", "sec", "",
            "Time of this call path on the run's critical path: the chain of activities, across "
            "processes, that determined when the run ended (Böhme et al., 2012), at the process "
            "where the path ran. Waiting is never on the path: at a wait state it moves to the "
            "process that caused the wait. The part above the call path's mean over processes "
            "is the sub-metric Critical-Path Imbalance.",
            "Only call paths on the critical path make the run longer: shortening one that is not "
            "on it gains nothing until it is. Start with the largest values.",
            MetricKind::kCounter};
  }
  void attach(PatternContext& context) override {
    const auto* ctx = &context;
    context.bus.subscribe<CriticalPathBatch>([this, ctx](const CriticalPathBatch& batch) {
      // The row's cells looked up once per batch (SeverityMap::add per item
      // would look up the row each time); the same additions, in order.
      const std::size_t callpaths = ctx->severities.callpaths();
      if (callpaths == 0) return;
      double* const cells = ctx->severities.cell(row(), 0);
      const double seconds_per_tick = ctx->seconds_per_tick;
      for (std::size_t k = 0; k < batch.count; ++k) {
        const CriticalPathFound& e = batch.items[k];
        if (e.ticks > 0 && e.callpath < callpaths) cells[e.callpath] += static_cast<double>(e.ticks) * seconds_per_tick;
      }
    });
  }
};

}  // namespace

void add_critical_path_metrics(const std::function<void(std::unique_ptr<Pattern>)>& add) {
  add(std::make_unique<CriticalPath>());
  add(make_category(MetricInfo{
      "critical_path_imbalance", "Critical-Path Imbalance", "sec", "critical_path",
      "The part of the call path's critical-path time above its mean time over processes: "
      "max(0, CP(c) - mean(c)), CP(c) the call path's time on the path (all processes), mean(c) "
      "its exclusive time summed over processes divided by their number; shared over the "
      "processes where the path ran it in proportion to their critical-path time.",
      "Load imbalance that costs run time: the processes shown here ran this call path longer "
      "than the average while the others waited. Balance its work across processes.",
      MetricKind::kCounter}));
  add(make_category(MetricInfo{
      "performance_impact", "Performance Impact", "sec", "",
      "How much shorter the run would be if this call path's critical-path time beyond its "
      "mean were removed: the call path's critical-path imbalance, shown at the processes that "
      "waited for it, in proportion to how much less time each spent in it than the critical "
      "path did (max(0, CP(c) - t(c, p))). Summed over processes: the estimated gain.",
      "Rank call paths by their total here to know which imbalance to fix first; the "
      "processes with the largest values are the ones that would stop waiting.",
      MetricKind::kCounter}));
}

}  // namespace orrery::patterns

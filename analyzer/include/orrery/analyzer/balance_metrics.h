#pragma once
// The metrics that compare the processes of a call path — the critical
// path's split (`critical_path_imbalance`, `performance_impact`) and the
// imbalance heuristic (`imbalance` and its parts) — and the function groups
// need every process's values of a call path. The master derives them while
// the merge streams the cube to it, metric by metric in registry order
// (their inputs come first): it keeps the call paths' time, computation
// time, visits and raw critical-path time (four metrics' worth of values)
// and fills the derived metrics when their turn comes (report/balance.h).

#include <cstddef>
#include <vector>

#include "orrery/patterns/registry.h"
#include "orrery/report/cube.h"
#include "orrery/report/groups.h"

namespace orrery::analyzer {

/// Derives the comparing metrics on rank 0 as the cube streams by.
class BalanceMetrics {
 public:
  BalanceMetrics(const report::CubeHeader& header, const patterns::PatternRegistry& registry);
  /// The metric rows under `time` (whose sum is a call path's time), ascending.
  [[nodiscard]] static std::vector<std::size_t> time_rows(const patterns::PatternRegistry& registry);
  /// Takes metric row `metric`'s values (all metrics, in row order); the
  /// derived metrics' values are replaced by what they derive to.
  void take(std::size_t metric, report::MetricValues& values);
  /// The function groups of the time seen so far (all of it after the last metric).
  [[nodiscard]] report::FunctionGroups groups(const std::vector<report::GroupRule>& rules) const;

  /// A call path on the critical path: its time there (all processes), the
  /// location that ran most of it, and the part above the call path's mean.
  struct PathEntry {
    std::size_t callpath = 0;
    double seconds = 0;
    std::size_t location = 0;
    double above_mean = 0;
  };
  /// The `top` call paths with the most critical-path time (after the metrics went by).
  [[nodiscard]] std::vector<PathEntry> path_entries(std::size_t top) const;

 private:
  /// One call path's row of a kept metric.
  [[nodiscard]] std::vector<double> row(const report::MetricValues& values, std::size_t c) const;

  const report::CubeHeader& header_;
  std::size_t locations_ = 0;
  std::vector<bool> in_time_tree_;  ///< per metric row
  std::vector<bool> ranks_;         ///< per location: a process's MPI thread
  std::size_t execution_, visits_, critical_path_, critical_imbalance_, impact_, imbalance_,
      above_, above_single_, below_, below_bypass_, below_singularity_;
  report::MetricValues time_, computation_, visit_counts_, critical_;
};

}  // namespace orrery::analyzer

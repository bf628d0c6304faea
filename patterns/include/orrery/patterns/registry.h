#pragma once
// The one list of patterns, in metric-table pre-order. The analyzer, the
// report's /metrics rows and the viewer's help all come from here.

#include <memory>
#include <string_view>
#include <vector>

#include "orrery/patterns/pattern.h"

namespace orrery::patterns {

/// All patterns of the analysis, each owning one row of the metric table.
class PatternRegistry {
 public:
  /// Every metric of docs/design.md §4, a parent before its children.
  PatternRegistry();

  [[nodiscard]] const std::vector<std::unique_ptr<Pattern>>& patterns() const { return patterns_; }
  [[nodiscard]] std::vector<MetricInfo> metric_table() const;
  /// Row of a metric; throws std::out_of_range for an unknown name.
  [[nodiscard]] std::size_t row(std::string_view name) const;
  /// Row of a metric's parent, -1 for a root.
  [[nodiscard]] int parent_row(std::size_t row) const;
  [[nodiscard]] std::size_t size() const { return patterns_.size(); }

  /// Subscribes every pattern to the bus of one rank's replay.
  void attach_all(PatternContext& context) const;
  void finish_all(PatternContext& context) const;

 private:
  std::vector<std::unique_ptr<Pattern>> patterns_;
  std::vector<MetricInfo> infos_;
};

}  // namespace orrery::patterns

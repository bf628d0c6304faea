#pragma once
// Matching a second report to the first so that its values can be shown in
// the union of both reports' trees: metrics by name, call paths by the chain
// of region names from the root (docs/design.md §5), locations by (rank, thread).
// Each union (metrics, call paths, locations) is the first report's rows,
// then the second report's unmatched rows in its own order.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "orrery/report/cube.h"

namespace orrery::viewer {

/// For each row of report A, the matching row of report B (or kNoMatch).
struct Comparison {
  static constexpr std::size_t kNoMatch = std::numeric_limits<std::size_t>::max();
  std::vector<std::size_t> metrics;
  std::vector<std::size_t> callpaths;
  std::vector<std::size_t> locations;
  /// The union call tree: a's call paths, then b's unmatched ones (in b's
  /// pre-order, so parents come first). For each union row, b's row or kNoMatch.
  std::vector<std::size_t> union_to_b;
  /// For each union row past a's call paths: its parent as a union row (-1 for a root).
  std::vector<int32_t> b_only_parents;
  /// The union metric tree: a's metrics, then b's unmatched ones (in b's
  /// order). For each union row, b's row or kNoMatch.
  std::vector<std::size_t> metric_union_to_b;
  /// For each union metric past a's: its parent as a union row, or -1 (a root,
  /// or a parent that is not known as an earlier row).
  std::vector<int32_t> b_only_metric_parents;
  /// The union locations: a's, then b's unmatched ones (in b's order). For
  /// each union row, b's row or kNoMatch.
  std::vector<std::size_t> location_union_to_b;
};

/// Matches the rows of `b` to those of `a`.
[[nodiscard]] Comparison match_reports(const report::CubeHeader& a, const report::CubeHeader& b);

/// Picks b's values into a's index space; unmatched rows become 0.
[[nodiscard]] std::vector<double> project(const std::vector<double>& b_values,
                                          const std::vector<std::size_t>& a_to_b);

}  // namespace orrery::viewer

#pragma once
// Walking the metric and call trees of a cube: names of call paths, subtrees,
// and inclusive values (sums over subtrees of the exclusive values of §5).

#include <cstddef>
#include <string>
#include <vector>

#include "orrery/report/cube.h"

namespace orrery::report {

/// For each call path row, its chain of region names from the root joined by "/" ("main/solve").
[[nodiscard]] std::vector<std::string> callpath_labels(const CubeHeader& header);

/// For each call path row, its depth (0 for a root).
[[nodiscard]] std::vector<int> callpath_depths(const CubeHeader& header);

/// The rows of a metric and all its descendants in the metric tree, the metric first.
[[nodiscard]] std::vector<std::size_t> metric_subtree(const CubeHeader& header,
                                                      std::size_t metric_row);

/// Turns exclusive values [callpath][location] into inclusive ones along the call tree, in place.
void make_callpath_inclusive(const CubeHeader& header, MetricValues& values);

/// Sums each call path's row over locations: [callpath] totals.
[[nodiscard]] std::vector<double> sum_over_locations(const CubeHeader& header,
                                                     const MetricValues& values);

/// Adds `addend` to `sum` element-wise (both of one metric's shape).
void add_values(MetricValues& sum, const MetricValues& addend);

}  // namespace orrery::report

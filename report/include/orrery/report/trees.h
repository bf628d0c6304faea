#pragma once
// Walking the metric and call trees of a cube: names of call paths, subtrees,
// and inclusive values (sums over subtrees of the exclusive values of §5).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "orrery/report/cube.h"

namespace orrery::report {

/// The one spelling of a call path, everywhere (tools, summaries, findings,
/// viewer, JSON): its region names from the root joined by "/" ("main/solve").
inline constexpr const char* kCallpathSeparator = "/";

/// For each call path row, its label ("main/solve").
[[nodiscard]] std::vector<std::string> callpath_labels(const CubeHeader& header);

/// The region names from the root to call path `row` (a cycle or a bad
/// parent in a corrupt report ends the chain instead of looping).
[[nodiscard]] std::vector<std::string> callpath_chain(const CubeHeader& header, std::size_t row);

/// The label of one call path row ("main/solve").
[[nodiscard]] std::string callpath_label(const CubeHeader& header, std::size_t row);

/// For each call path row, its depth (0 for a root).
[[nodiscard]] std::vector<int> callpath_depths(const CubeHeader& header);

/// The rows of a metric and all its descendants in the metric tree, the metric first.
[[nodiscard]] std::vector<std::size_t> metric_subtree(const CubeHeader& header,
                                                      std::size_t metric_row);

/// Walks a forest given by parent rows (-1 for a root) depth first, children
/// in row order, without recursion (call trees of recursive programs can be
/// very deep): `enter(row, depth)` before a node's children, `leave(row,
/// depth)` after them. Rows whose parent is out of range are not visited.
void walk_tree(const std::vector<int32_t>& parents,
               const std::function<void(std::size_t row, std::size_t depth)>& enter,
               const std::function<void(std::size_t row, std::size_t depth)>& leave);

/// Turns exclusive values [callpath][location] into inclusive ones along the call tree, in place.
void make_callpath_inclusive(const CubeHeader& header, MetricValues& values);

/// Sums each call path's row over locations: [callpath] totals.
[[nodiscard]] std::vector<double> sum_over_locations(const CubeHeader& header,
                                                     const MetricValues& values);

/// Adds `addend` to `sum` element-wise (both of one metric's shape).
void add_values(MetricValues& sum, const MetricValues& addend);

}  // namespace orrery::report

#include "comparison.h"

#include "orrery/report/algebra.h"

#include <utility>

namespace orrery::viewer {

// b's call paths that no call path of a matched go after a's, as in `orrery diff`.
void add_b_only_callpaths(const report::CubeHeader& b, Comparison& comparison) {
  std::vector<int64_t> b_to_union(b.callpaths.size(), -1);
  comparison.union_to_b = comparison.callpaths;
  for (std::size_t c = 0; c < comparison.callpaths.size(); ++c) {
    if (comparison.callpaths[c] < b_to_union.size()) {
      b_to_union[comparison.callpaths[c]] = static_cast<int64_t>(c);
    }
  }
  for (std::size_t c = 0; c < b.callpaths.size(); ++c) {
    if (b_to_union[c] >= 0) continue;
    const int32_t parent = b.callpaths[c].parent;
    int32_t union_parent = -1;
    if (parent >= 0 && static_cast<std::size_t>(parent) < c) {
      union_parent = static_cast<int32_t>(b_to_union[static_cast<std::size_t>(parent)]);
    }
    b_to_union[c] = static_cast<int64_t>(comparison.union_to_b.size());
    comparison.union_to_b.push_back(c);
    comparison.b_only_parents.push_back(union_parent);
  }
}

// b's metrics that no metric of a matched go after a's; each keeps its parent
// if that is known by then (a matched metric, or one of b's own added earlier).
void add_b_only_metrics(const report::CubeHeader& b, Comparison& comparison) {
  std::vector<int64_t> b_to_union(b.metrics.size(), -1);
  comparison.metric_union_to_b = comparison.metrics;
  for (std::size_t m = 0; m < comparison.metrics.size(); ++m) {
    if (comparison.metrics[m] < b_to_union.size()) b_to_union[comparison.metrics[m]] = static_cast<int64_t>(m);
  }
  for (std::size_t m = 0; m < b.metrics.size(); ++m) {
    if (b_to_union[m] >= 0) continue;
    const int32_t parent = b.metrics[m].parent;
    int32_t union_parent = -1;
    if (parent >= 0 && static_cast<std::size_t>(parent) < b.metrics.size()) {
      union_parent = static_cast<int32_t>(b_to_union[static_cast<std::size_t>(parent)]);
    }
    b_to_union[m] = static_cast<int64_t>(comparison.metric_union_to_b.size());
    comparison.metric_union_to_b.push_back(m);
    comparison.b_only_metric_parents.push_back(union_parent);
  }
}

// b's locations that no location of a matched go after a's (a scaling study:
// the other run has more processes).
void add_b_only_locations(const report::CubeHeader& b, Comparison& comparison) {
  std::vector<bool> matched(b.locations.size(), false);
  for (const std::size_t l : comparison.locations) {
    if (l < matched.size()) matched[l] = true;
  }
  comparison.location_union_to_b = comparison.locations;
  for (std::size_t l = 0; l < b.locations.size(); ++l) {
    if (!matched[l]) comparison.location_union_to_b.push_back(l);
  }
}

Comparison match_reports(const report::CubeHeader& a, const report::CubeHeader& b) {
  Comparison comparison;
  static_assert(Comparison::kNoMatch == report::RowMatch::kNoMatch);
  report::RowMatch rows = report::match_rows(a, b);
  comparison.metrics = std::move(rows.metrics);
  comparison.callpaths = std::move(rows.callpaths);
  comparison.locations = std::move(rows.locations);
  add_b_only_callpaths(b, comparison);
  add_b_only_metrics(b, comparison);
  add_b_only_locations(b, comparison);
  return comparison;
}

std::vector<double> project(const std::vector<double>& b_values,
                            const std::vector<std::size_t>& a_to_b) {
  std::vector<double> result(a_to_b.size(), 0.0);
  for (std::size_t i = 0; i < a_to_b.size(); ++i) {
    if (a_to_b[i] < b_values.size()) result[i] = b_values[a_to_b[i]];
  }
  return result;
}

}  // namespace orrery::viewer

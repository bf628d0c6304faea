#pragma once
// Per call path and per location summaries of one metric's values: what
// `stat`, `tree` and `compare` print.

#include <cstddef>
#include <vector>

#include "orrery/report/cube.h"

namespace orrery::report::tools {

/// How a call path's values spread across locations.
struct Spread {
  double min = 0;
  double mean = 0;
  double max = 0;
  double cv = 0;  ///< coefficient of variation: population stddev / |mean|, 0 if the mean is 0
};

/// Spread of n values.
[[nodiscard]] Spread spread_of(const double* values, std::size_t n);

/// One call path's totals (summed over locations) and spread across locations.
struct CallpathSummary {
  double exclusive = 0;
  double inclusive = 0;
  Spread spread;  ///< of exclusive or inclusive values, as asked
};

/// A metric summarised over the call tree and the locations.
struct MetricSummary {
  std::vector<CallpathSummary> callpaths;  ///< one per call path row
  std::vector<double> per_location;        ///< per location, over the chosen call paths
  double total = 0;                        ///< sum of everything
};

/// Summarises exclusive [callpath][location] values; `values` is turned inclusive in place
/// (so a large metric is held once). `spread_of_inclusive` picks what the spread describes.
/// per_location adds up the chosen call paths (all if `chosen` is null): their exclusive
/// values, or with `spread_of_inclusive` the inclusive values of the outermost chosen ones.
[[nodiscard]] MetricSummary summarize(const CubeHeader& header, MetricValues& values,
                                      bool spread_of_inclusive,
                                      const std::vector<bool>* chosen = nullptr);

}  // namespace orrery::report::tools

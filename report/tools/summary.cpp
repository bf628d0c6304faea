#include "summary.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "orrery/report/trees.h"

namespace orrery::report::tools {

Spread spread_of(const double* all_values, std::size_t all) {
  Spread spread;
  // NaN marks a location without data (a rank that left no trace): skipped.
  std::vector<double> present;
  for (std::size_t i = 0; i < all; ++i) {
    if (!std::isnan(all_values[i])) {
      present.push_back(all_values[i]);
    }
  }
  const double* values = present.data();
  const std::size_t n = present.size();
  if (n == 0) {
    return spread;
  }
  spread.min = *std::min_element(values, values + n);
  spread.max = *std::max_element(values, values + n);
  double sum = 0;
  for (std::size_t i = 0; i < n; ++i) {
    sum += values[i];
  }
  spread.mean = sum / static_cast<double>(n);
  double squares = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double deviation = values[i] - spread.mean;
    squares += deviation * deviation;
  }
  const double stddev = std::sqrt(squares / static_cast<double>(n));
  spread.cv = spread.mean != 0.0 ? stddev / std::fabs(spread.mean) : 0.0;
  return spread;
}

MetricSummary summarize(const CubeHeader& header, MetricValues& values, bool spread_of_inclusive,
                        const std::vector<bool>* chosen) {
  const std::size_t width = header.locations.size();
  const std::size_t rows = header.callpaths.size();
  // With inclusive values, a chosen call path inside another chosen one is already counted.
  std::vector<bool> counted(rows, false);
  std::vector<bool> below_chosen(rows, false);
  for (std::size_t row = 0; row < rows; ++row) {
    const bool is_chosen = chosen == nullptr || (*chosen)[row];
    const int32_t parent = header.callpaths[row].parent;
    if (parent >= 0) {
      const auto p = static_cast<std::size_t>(parent);
      below_chosen[row] = below_chosen[p] || chosen == nullptr || (*chosen)[p];
    }
    counted[row] = is_chosen && (!spread_of_inclusive || !below_chosen[row]);
  }
  MetricSummary summary;
  summary.callpaths.resize(rows);
  summary.per_location.assign(width, 0.0);
  auto count_row = [&](const double* data) {
    for (std::size_t l = 0; l < width; ++l) {
      if (!std::isnan(data[l])) {
        summary.per_location[l] += data[l];
      }
    }
  };
  for (std::size_t row = 0; row < rows; ++row) {
    const double* data = values.data() + row * width;
    double sum = 0;
    for (std::size_t l = 0; l < width; ++l) {
      if (!std::isnan(data[l])) {
        sum += data[l];
      }
    }
    summary.callpaths[row].exclusive = sum;
    summary.total += sum;
    if (!spread_of_inclusive) {
      summary.callpaths[row].spread = spread_of(data, width);
      if (counted[row]) {
        count_row(data);
      }
    }
  }
  make_callpath_inclusive(header, values);
  for (std::size_t row = 0; row < rows; ++row) {
    const double* data = values.data() + row * width;
    double sum = 0;
    for (std::size_t l = 0; l < width; ++l) {
      if (!std::isnan(data[l])) {
        sum += data[l];
      }
    }
    summary.callpaths[row].inclusive = sum;
    if (spread_of_inclusive) {
      summary.callpaths[row].spread = spread_of(data, width);
      if (counted[row]) {
        count_row(data);
      }
    }
  }
  return summary;
}

}  // namespace orrery::report::tools

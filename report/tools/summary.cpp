#include "summary.h"

#include <algorithm>
#include <cmath>

#include "orrery/report/trees.h"

namespace orrery::report::tools {

Spread spread_of(const double* values, std::size_t n) {
  Spread spread;
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

MetricSummary summarize(const CubeHeader& header, MetricValues& values, bool spread_of_inclusive) {
  const std::size_t width = header.locations.size();
  MetricSummary summary;
  summary.callpaths.resize(header.callpaths.size());
  summary.per_location.assign(width, 0.0);
  for (std::size_t row = 0; row < header.callpaths.size(); ++row) {
    const double* data = values.data() + row * width;
    double sum = 0;
    for (std::size_t l = 0; l < width; ++l) {
      sum += data[l];
      summary.per_location[l] += data[l];
    }
    summary.callpaths[row].exclusive = sum;
    summary.total += sum;
    if (!spread_of_inclusive) {
      summary.callpaths[row].spread = spread_of(data, width);
    }
  }
  make_callpath_inclusive(header, values);
  for (std::size_t row = 0; row < header.callpaths.size(); ++row) {
    const double* data = values.data() + row * width;
    double sum = 0;
    for (std::size_t l = 0; l < width; ++l) {
      sum += data[l];
    }
    summary.callpaths[row].inclusive = sum;
    if (spread_of_inclusive) {
      summary.callpaths[row].spread = spread_of(data, width);
    }
  }
  return summary;
}

}  // namespace orrery::report::tools

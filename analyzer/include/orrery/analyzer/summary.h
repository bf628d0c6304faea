#pragma once
// The short summary orrery-analyze prints at the end: total time, the top
// wait states with their call paths and most affected ranks, and where the
// report is.

#include <ostream>
#include <string>
#include <vector>

#include "orrery/analyzer/replay.h"
#include "orrery/patterns/registry.h"
#include "orrery/report/cube.h"

namespace orrery::analyzer {

/// What the summary needs of the cube, collected metric by metric while the
/// merge streams it: each metric's sums per call path and per location.
class SummaryDigest {
 public:
  explicit SummaryDigest(const report::CubeHeader& header);
  /// Digests metric `metric`'s values [callpath][location].
  void add(std::size_t metric, const report::MetricValues& values);
  /// The same for a metric that arrives in blocks of locations, in location
  /// order (the first block starts at location 0): `values` [callpath][count].
  void add_block(std::size_t metric, const double* values, std::size_t first, std::size_t count);
  [[nodiscard]] const std::vector<std::vector<double>>& by_callpath() const { return by_callpath_; }
  [[nodiscard]] const std::vector<std::vector<double>>& by_location() const { return by_location_; }
  /// Adds the sums of the metrics `rows` element-wise into `sum`.
  static void add_subtree(const std::vector<std::vector<double>>& source,
                          const std::vector<std::size_t>& rows, std::vector<double>& sum);

 private:
  std::size_t callpaths_;
  std::size_t locations_;
  std::vector<std::vector<double>> by_callpath_;
  std::vector<std::vector<double>> by_location_;
};

/// Inclusive value of metric `row` (over its metric subtree) summed over all
/// call paths and locations.
[[nodiscard]] double metric_total(const report::CubeHeader& header, const SummaryDigest& digest,
                                  std::size_t row);

void print_summary(std::ostream& out, const report::CubeHeader& header,
                   const SummaryDigest& digest, const patterns::PatternRegistry& registry,
                   const ReplayStatistics& statistics, const std::string& report_path,
                   std::size_t top = 5);
/// The same from a whole cube in memory.
void print_summary(std::ostream& out, const report::Cube& cube,
                   const patterns::PatternRegistry& registry, const ReplayStatistics& statistics,
                   const std::string& report_path, std::size_t top = 5);

}  // namespace orrery::analyzer

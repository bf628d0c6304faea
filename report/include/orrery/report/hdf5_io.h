#pragma once
// Reading and writing report.h5 exactly as docs/design.md §5 says. Errors are thrown
// as orrery::InputError with a message naming the file and what is wrong.

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "orrery/report/cube.h"

namespace orrery::report {

/// Reads a report lazily: the header when opened, values one metric at a time.
/// One thread at a time per reader (whole-metric reads inflate chunks on
/// several threads internally).
class CubeReader {
 public:
  /// Opens and validates the file (format, version, tables). Throws InputError.
  explicit CubeReader(const std::string& path);
  ~CubeReader();
  CubeReader(const CubeReader&) = delete;
  CubeReader& operator=(const CubeReader&) = delete;
  CubeReader(CubeReader&&) noexcept;
  CubeReader& operator=(CubeReader&&) noexcept;

  [[nodiscard]] const CubeHeader& header() const;
  /// Row of the metric with this name; throws InputError naming the metric if absent.
  [[nodiscard]] std::size_t metric_row(std::string_view name) const;
  /// All values of one metric, [callpath][location].
  [[nodiscard]] MetricValues read_metric(std::size_t metric_row) const;
  /// Adds one metric's values into `sum` ([callpath][location], already sized), without
  /// a second whole-metric buffer: how sub-metrics are summed on large cubes.
  void add_metric(std::size_t metric_row, MetricValues& sum) const;
  /// The values of one metric at one call path, one per location.
  [[nodiscard]] std::vector<double> read_callpath(std::size_t metric_row,
                                                  std::size_t callpath_row) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Writes a report: the header at construction, then one metric per call
/// (one HDF5 write per metric). Metrics never written are stored as zeros.
class CubeWriter {
 public:
  /// Creates (or truncates) the file. Throws InputError if it cannot be written.
  CubeWriter(const std::string& path, const CubeHeader& header);
  ~CubeWriter();
  CubeWriter(const CubeWriter&) = delete;
  CubeWriter& operator=(const CubeWriter&) = delete;

  void write_metric(std::size_t metric_row, const MetricValues& values);
  /// Finishes the file; called by the destructor if not called before.
  void close();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The whole cube in memory (small cubes, tests, algebra).
[[nodiscard]] Cube read_cube(const std::string& path);
void write_cube(const std::string& path, const Cube& cube);

}  // namespace orrery::report

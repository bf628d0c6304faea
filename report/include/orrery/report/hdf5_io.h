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
  /// Call paths first .. first + count - 1 of one metric, [callpath][location].
  [[nodiscard]] MetricValues read_rows(std::size_t metric_row, std::size_t first,
                                       std::size_t count) const;
  /// Adds those rows into `sum` (count x locations); all rows: as add_metric.
  void add_rows(std::size_t metric_row, std::size_t first, std::size_t count,
                MetricValues& sum) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// How a report's values are chunked (docs/design.md §5 leaves it to the writer;
/// every reader reads any chunking). Ordinary cubes: chunks of whole call-path
/// rows of about 1 MiB, so that reading one call path decompresses little. A
/// large cube, written in blocks of locations (CubeWriter::write_columns):
/// chunks `band_columns` wide and at most kLargeCubeChunkRows high, so that
/// one band of columns completes its chunks and HDF5's chunk cache of two
/// bands (band_columns x call paths each) is all the writer holds.
struct CubeLayout {
  std::size_t band_columns = 0;  ///< 0: the ordinary layout
};
inline constexpr std::size_t kLargeCubeChunkRows = 8;
/// The large-cube layout whose two bands hold `memory_values` values.
[[nodiscard]] CubeLayout large_cube_layout(std::size_t callpaths, std::size_t memory_values);

/// Writes a report: the header at construction, then one metric per call
/// (one HDF5 write per metric), or one block of locations of a metric per
/// call. Metrics never written are stored as zeros.
class CubeWriter {
 public:
  /// Creates (or truncates) the file. Throws InputError if it cannot be written.
  CubeWriter(const std::string& path, const CubeHeader& header, CubeLayout layout = {});
  ~CubeWriter();
  CubeWriter(const CubeWriter&) = delete;
  CubeWriter& operator=(const CubeWriter&) = delete;

  void write_metric(std::size_t metric_row, const MetricValues& values);
  /// Locations first .. first + count - 1 of a metric: `values` [callpath][count].
  void write_columns(std::size_t metric_row, std::size_t first, std::size_t count,
                     const double* values);
  /// Done with a metric written in columns: writes what its chunk cache holds
  /// and frees it (the metric cannot be written again).
  void finish_metric(std::size_t metric_row);
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

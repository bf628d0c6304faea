#pragma once
// One report as the viewer sees it: the header, plus per-metric values that
// are loaded once (through a loader, normally orrery::report::CubeReader) and
// turned into the sums the three trees need. Everything is computed lazily
// per metric and then kept, so repeated expand/select requests only add up
// a few rows.

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "orrery/report/cube.h"

namespace orrery::viewer {

/// A metric's values with the call-tree sums precomputed (all [callpath][location]).
struct MetricSums {
  report::MetricValues exclusive;       ///< as stored: exclusive in both trees
  report::MetricValues inclusive;       ///< summed over each call path's subtree
  std::vector<double> exclusive_total;  ///< per call path, summed over locations
  std::vector<double> inclusive_total;  ///< per call path, summed over locations
  double total = 0.0;                   ///< over all call paths and locations
};

/// Which part of a tree a selection covers: one node alone or its whole subtree.
struct TreeSelection {
  std::size_t row = 0;
  bool inclusive = true;
};

/// A call-path row that stands for all roots together (the whole program):
/// its inclusive value sums the roots, its exclusive value is zero.
inline constexpr std::size_t kAllCallpaths = static_cast<std::size_t>(-1);

/// A report held by the viewer: header plus lazily computed, cached metric sums.
class ReportData {
 public:
  using Loader = std::function<report::MetricValues(std::size_t metric_row)>;

  ReportData(std::string label, report::CubeHeader header, Loader loader);

  /// Bounds the memory of cached metric sums (LRU over metrics); the metric
  /// being used is always kept, so at least one metric stays cached.
  void set_cache_budget(std::size_t bytes) { cache_budget_ = bytes; }
  /// Bytes of metric sums cached now.
  [[nodiscard]] std::size_t cached_bytes();

  [[nodiscard]] const std::string& label() const { return label_; }
  [[nodiscard]] const report::CubeHeader& header() const { return header_; }
  [[nodiscard]] std::size_t callpath_count() const { return header_.callpaths.size(); }
  [[nodiscard]] std::size_t location_count() const { return header_.locations.size(); }

  /// The sums of one metric; loads it on first use. Thread-safe. Throws InputError.
  [[nodiscard]] std::shared_ptr<const MetricSums> metric(std::size_t metric_row);

  /// The sums of one metric if they are already computed, else nullptr; never blocks on a load.
  [[nodiscard]] std::shared_ptr<const MetricSums> metric_if_ready(std::size_t metric_row);

  /// Loads every metric in metric-tree order until `cancel`, pausing while a
  /// request waits for a metric, so the page's selection is read first.
  void preload(const std::atomic<bool>& cancel);

  /// The metric rows a selection covers (the node, or the node and its sub-metrics).
  [[nodiscard]] std::vector<std::size_t> metric_rows(TreeSelection metric) const;

  /// Per metric row: its total over all call paths and locations (exclusive in the metric tree).
  [[nodiscard]] std::vector<double> metric_totals();
  /// Like metric_totals() but never waits: metrics not computed yet are NaN (JSON null).
  /// A metric whose background load failed is loaded again here, so its error is thrown.
  [[nodiscard]] std::vector<double> metric_totals_so_far();
  /// Per call path: the selected metric(s) summed over locations.
  struct CallpathValues {
    std::vector<double> exclusive;
    std::vector<double> inclusive;
  };
  [[nodiscard]] CallpathValues callpath_values(TreeSelection metric);
  /// Per location: the selected metric(s) at the selected call path(s) (or kAllCallpaths).
  [[nodiscard]] std::vector<double> location_values(TreeSelection metric, TreeSelection callpath);
  /// Row-major [k][location] values of the selected metric(s) at the given call paths (exclusive).
  [[nodiscard]] std::vector<std::vector<double>> callpath_rows(TreeSelection metric,
                                                               const std::vector<std::size_t>& rows);

 private:
  struct Slot {
    std::mutex mutex;  // held while the metric loads, so it loads once
    std::mutex pointer_mutex;  // guards `sums` only (never held during a load)
    std::shared_ptr<const MetricSums> sums;
    bool preload_failed = false;  // guarded by pointer_mutex
    double total = std::numeric_limits<double>::quiet_NaN();  // kept after eviction
    std::size_t bytes = 0;       // of `sums`; guarded by pointer_mutex
    std::uint64_t last_use = 0;  // LRU clock; guarded by pointer_mutex
  };
  /// Drops least recently used metrics (never `keep`) until within the budget.
  void evict(std::size_t keep);
  [[nodiscard]] std::shared_ptr<const MetricSums> load(std::size_t metric_row);
  [[nodiscard]] std::shared_ptr<const MetricSums> compute(std::size_t metric_row);

  std::string label_;
  report::CubeHeader header_;
  Loader loader_;
  std::mutex loader_mutex_;  // the HDF5 library is not thread-safe
  std::vector<std::unique_ptr<Slot>> slots_;
  std::vector<std::vector<std::size_t>> metric_children_;
  std::vector<std::size_t> tree_order_;     // metric rows in metric-tree pre-order
  std::atomic<int> waiting_requests_{0};  // requests blocked on a metric load
  std::atomic<std::uint64_t> clock_{0};
  std::size_t cache_budget_ = std::numeric_limits<std::size_t>::max();
  std::mutex cache_mutex_;  // taken before any pointer_mutex, never after
  std::size_t cached_bytes_ = 0;
};

}  // namespace orrery::viewer

#pragma once
// What `orrery compare` compares: per run, per metric and call path of the
// union of the runs' trees, the value summed over the run's locations. Call
// paths match by region-name chain, so runs of other sizes or binaries line up.

#include <cstddef>
#include <vector>

#include "orrery/report/algebra.h"
#include "orrery/report/cube.h"
#include "orrery/report/hdf5_io.h"

namespace orrery::report {

/// Per run, per united metric: per united call path, the metric's own
/// (exclusive) value summed over the run's locations: [run][metric][callpath].
using RunTotals = std::vector<std::vector<std::vector<double>>>;

/// Reads every metric of every run once. With `per_process`, each run's sums
/// are divided by its number of locations.
[[nodiscard]] RunTotals run_totals(const std::vector<const CubeReader*>& readers,
                                   const CubeUnion& united, bool per_process);

/// How a metric's value at a call path is shown.
struct ValueView {
  bool exclusive_metric = false;  ///< only the metric itself, not its sub-metrics
  bool inclusive = false;         ///< summed over the call path's subtree
};

/// One run's values of united metric `m` per united call path, as `view` says.
[[nodiscard]] std::vector<double> metric_values(const CubeUnion& united,
                                                const std::vector<std::vector<double>>& run,
                                                std::size_t m, const ValueView& view);

}  // namespace orrery::report

#pragma once
// Values that compare the processes of one call path (docs/design.md §4): Scalasca's
// load-imbalance heuristic and the critical path's split into its part
// above the mean and the performance impact. Plain functions on one call
// path's row of values, one per location, so that the analyzer can derive
// them metric by metric while it streams the cube, and tests can check the
// formulas on literal rows. NaN (an absent location) counts as not there.

#include <cstddef>
#include <vector>

namespace orrery::report {

/// The five parts of the imbalance heuristic of one call path, per location
/// (`imbalance` itself holds 0). With t the location's computation time, V
/// the locations that visited the call path, P all locations and m the mean
/// of t over V:
///   |V| >= 2: above = t - m (t > m), below = m - t (t < m) for visitors,
///             below_bypass = m for the others;
///   |V| == 1: above_single = t (P - 1) / P for the visitor,
///             below_singularity = t / P for the others.
struct ImbalanceParts {
  std::vector<double> above, above_single, below, below_bypass, below_singularity;
};
/// `time` and `visits`: one value per location of the call path.
[[nodiscard]] ImbalanceParts imbalance_parts(const std::vector<double>& time,
                                             const std::vector<double>& visits);

/// The critical path of one call path split over the locations. CP(c) is
/// the sum of `critical` (the walk's time per location), mean(c) the sum of
/// `time` (the call path's exclusive time) over the locations in `ranks`
/// (the processes: their MPI threads) divided by their number, and I(c) =
/// max(0, CP(c) - mean(c)):
///   imbalance[l] = critical[l] I(c) / CP(c)  (the part above the mean),
///   critical_path[l] = critical[l] - imbalance[l],
///   impact[l] = I(c) w[l] / sum(w), w[l] = max(0, CP(c) - time[l]) over `ranks`.
struct CriticalPathSplit {
  std::vector<double> critical_path, imbalance, impact;
};
[[nodiscard]] CriticalPathSplit split_critical_path(const std::vector<double>& critical,
                                                    const std::vector<double>& time,
                                                    const std::vector<bool>& ranks);

}  // namespace orrery::report

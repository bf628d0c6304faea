#pragma once
// Values that compare the processes of one call path (docs/design.md §4): Scalasca's
// load-imbalance heuristic and the critical path's split into its part
// above the mean and the performance impact. Plain functions on one call
// path's row of values, one per location, so that the analyzer can derive
// them metric by metric while it streams the cube, and tests can check the
// formulas on literal rows. NaN (an absent location) counts as not there.

#include <array>
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

// The same formulas for a call path whose locations arrive in blocks (the
// analyzer's merge of large cubes): the sums over the locations first, in
// location order, then the value at each location. Both functions above
// are written with these, so the results are the same bit for bit.

/// Sums of imbalance_parts over one call path's locations.
struct ImbalanceTotals {
  std::size_t present = 0, visitors = 0;
  double sum = 0;  ///< the visitors' time
};
/// Adds location (time, visits) to the totals (call in location order).
void add_imbalance_location(ImbalanceTotals& totals, double time, double visits);
/// The five parts at one location: above, above_single, below, below_bypass, below_singularity.
[[nodiscard]] std::array<double, 5> imbalance_at(const ImbalanceTotals& totals, double time,
                                                 double visits);

/// Sums of split_critical_path over one call path's locations: the first
/// pass (add_critical_location) gives CP(c) and mean(c), the second
/// (add_impact_weight, with CP(c) known) the impact weights.
struct CriticalPathTotals {
  double on_path = 0, time_sum = 0, weights = 0;
  std::size_t processes = 0;
};
void add_critical_location(CriticalPathTotals& totals, double critical, double time, bool rank);
void add_impact_weight(CriticalPathTotals& totals, double time, bool rank);
/// critical_path, imbalance and impact at one location.
[[nodiscard]] std::array<double, 3> critical_path_at(const CriticalPathTotals& totals,
                                                     double critical, double time, bool rank);

}  // namespace orrery::report

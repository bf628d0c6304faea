#pragma once
// Groups of repeated runs: per metric and call path, each group's mean and
// confidence interval, the relative change of the means and Welch's t-test
// (a baseline and a candidate group), or the run-to-run noise of one group
// and how many repeats a change needs to be detected (statistics.h).

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "orrery/report/algebra.h"
#include "orrery/report/hdf5_io.h"
#include "orrery/report/run_totals.h"
#include "orrery/report/statistics.h"

namespace orrery::report {

/// One run of a group: its report and the name the user gave it.
struct GroupRun {
  std::string path;
  const CubeReader* reader = nullptr;
};

/// Which values a group comparison or noise report looks at.
struct GroupSelection {
  std::vector<std::string> metrics;  ///< metric names; empty: every metric
  ValueView view;                    ///< sub-metrics included, exclusive call paths by default
  bool per_process = false;          ///< each run's sums divided by its locations
};

/// How a group comparison decides.
struct GroupTest {
  double alpha = 0.05;       ///< significance level (and 1 - confidence of the intervals)
  double min_change = 0.02;  ///< smallest |relative change| that counts as significant
};

/// One group's numbers at one metric and call path.
struct GroupSummary {
  stats::Sample sample;
  double ci_low = 0;   ///< (1 - alpha) confidence interval of the mean
  double ci_high = 0;
};

/// One metric and call path compared between the groups.
struct GroupComparisonRow {
  std::size_t metric = 0;  ///< row in the united header
  std::size_t callpath = 0;
  std::string label;       ///< call path as region names joined by "/"
  GroupSummary baseline;
  GroupSummary candidate;
  std::optional<double> change;  ///< (candidate - baseline) / |baseline|; none if baseline is 0
  double p_value = 1;            ///< Welch's t-test, two-sided
  bool significant = false;      ///< p < alpha and |change| >= min_change (or baseline 0)
  /// |candidate - baseline mean| / the baseline total of the metric's root (e.g. the
  /// run's whole time for late_sender): how much of the run moved, the sort key.
  double share = 0;
};

/// The rows of a group comparison, significant first, then by share, then by p-value.
struct GroupComparison {
  CubeUnion united;
  std::vector<GroupComparisonRow> rows;  ///< every metric and call path not zero in all runs
};

/// Compares two groups of at least two runs each. Throws UsageError for a
/// group of one, InputError when a report lacks a metric the others have.
[[nodiscard]] GroupComparison compare_groups(const std::vector<GroupRun>& baseline,
                                             const std::vector<GroupRun>& candidate,
                                             const GroupSelection& selection,
                                             const GroupTest& test);

/// What a noise report aims for.
struct NoiseTarget {
  double alpha = 0.05;   ///< the level a later comparison will use
  double change = 0.10;  ///< the relative change the user wants to detect
  double power = 0.80;   ///< probability of detecting it
};

/// One metric and call path's run-to-run variation within one group.
struct NoiseRow {
  std::size_t metric = 0;
  std::size_t callpath = 0;
  std::string label;
  GroupSummary summary;
  std::optional<double> cv;                 ///< stddev / |mean|; none if the mean is 0
  std::optional<std::size_t> runs_needed;   ///< per group, to detect the target change
  double share = 0;  ///< mean / the mean total of the metric's root: the sort key (largest first)
};

/// The rows of a noise report, largest share first.
struct NoiseReport {
  CubeUnion united;
  std::vector<NoiseRow> rows;
};

/// The noise of one group of at least two runs (same errors as compare_groups).
[[nodiscard]] NoiseReport noise_report(const std::vector<GroupRun>& runs,
                                       const GroupSelection& selection, const NoiseTarget& target);

}  // namespace orrery::report

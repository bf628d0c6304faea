#include "orrery/report/run_groups.h"

#include <algorithm>
#include <cmath>

#include "orrery/error.h"
#include "orrery/report/trees.h"

namespace orrery::report {
namespace {

/// The values a group statistic is computed from, for the selected metrics.
struct GroupValues {
  CubeUnion united;
  std::vector<std::size_t> metrics;                      ///< united metric rows, in order
  std::vector<std::vector<std::vector<double>>> values;  ///< [selected metric][run][callpath]
  /// [selected metric][run]: the total of the metric's root metric (with all its
  /// sub-metrics) over all call paths, e.g. the run's whole time for late_sender.
  std::vector<std::vector<double>> root_totals;
};

std::size_t root_metric(const CubeHeader& header, std::size_t m) {
  while (header.metrics[m].parent >= 0) m = static_cast<std::size_t>(header.metrics[m].parent);
  return m;
}

std::vector<std::size_t> selected_metrics(const CubeHeader& header, const GroupSelection& selection) {
  std::vector<std::size_t> rows;
  if (selection.metrics.empty()) {
    for (std::size_t m = 0; m < header.metrics.size(); ++m) rows.push_back(m);
    return rows;
  }
  for (const auto& name : selection.metrics) {
    const auto found = std::find_if(header.metrics.begin(), header.metrics.end(),
                                    [&](const Metric& metric) { return metric.name == name; });
    if (found == header.metrics.end()) {
      throw InputError("no metric '" + name + "' in any of the reports");
    }
    rows.push_back(static_cast<std::size_t>(found - header.metrics.begin()));
  }
  return rows;
}

/// Every run must hold every metric that goes into the selected values: a
/// metric absent from one run would count as zeros there and fake a change.
void require_metrics_everywhere(const std::vector<GroupRun>& runs, const CubeUnion& united,
                                const std::vector<std::size_t>& metrics, bool exclusive_metric) {
  for (const std::size_t m : metrics) {
    const auto needed = exclusive_metric ? std::vector<std::size_t>{m}
                                         : metric_subtree(united.header, m);
    for (const std::size_t row : needed) {
      std::size_t holder = 0;
      while (holder < runs.size() && !united.input_metric(holder, row)) ++holder;
      for (std::size_t i = 0; i < runs.size(); ++i) {
        if (!united.input_metric(i, row)) {
          throw InputError(runs[i].path + " has no metric '" + united.header.metrics[row].name +
                           "' that " + runs[holder].path +
                           " has: the reports come from different analyses (choose metrics "
                           "all of them have with --metric)");
        }
      }
    }
  }
}

GroupValues gather(const std::vector<GroupRun>& runs, const GroupSelection& selection) {
  GroupValues result;
  std::vector<const CubeHeader*> headers;
  std::vector<const CubeReader*> readers;
  for (const GroupRun& run : runs) {
    headers.push_back(&run.reader->header());
    readers.push_back(run.reader);
  }
  result.united = unite(headers);
  result.metrics = selected_metrics(result.united.header, selection);
  require_metrics_everywhere(runs, result.united, result.metrics, selection.view.exclusive_metric);
  const RunTotals totals = run_totals(readers, result.united, selection.per_process);
  for (const std::size_t m : result.metrics) {
    const std::size_t root = root_metric(result.united.header, m);
    std::vector<std::vector<double>> per_run;
    std::vector<double> root_total;
    for (const auto& run : totals) {
      double total = 0;
      for (const double value : metric_values(result.united, run, root, ValueView{})) total += value;
      root_total.push_back(total);
      per_run.push_back(metric_values(result.united, run, m, selection.view));
    }
    result.values.push_back(std::move(per_run));
    result.root_totals.push_back(std::move(root_total));
  }
  return result;
}

/// The values of call path `c` in runs [first, first + count).
std::vector<double> column(const std::vector<std::vector<double>>& per_run, std::size_t first,
                           std::size_t count, std::size_t c) {
  std::vector<double> values;
  for (std::size_t run = first; run < first + count; ++run) values.push_back(per_run[run][c]);
  return values;
}

double mean_of(const std::vector<double>& values, std::size_t first, std::size_t count) {
  double sum = 0;
  for (std::size_t i = first; i < first + count; ++i) sum += values[i];
  return count == 0 ? 0.0 : sum / static_cast<double>(count);
}

/// Summaries share the t-quantile of their group size; it is computed once per size.
class Summarizer {
 public:
  explicit Summarizer(double alpha) : alpha_(alpha) {}
  GroupSummary operator()(const std::vector<double>& values) {
    GroupSummary summary;
    summary.sample = stats::summarize(values);
    double half = 0;
    if (summary.sample.n >= 2 && summary.sample.stddev > 0) {
      if (quantiles_.size() <= summary.sample.n) quantiles_.resize(summary.sample.n + 1, 0.0);
      double& quantile = quantiles_[summary.sample.n];
      if (quantile == 0) {
        quantile = stats::student_t_quantile(1.0 - alpha_ / 2.0,
                                             static_cast<double>(summary.sample.n - 1));
      }
      half = quantile * summary.sample.stddev / std::sqrt(static_cast<double>(summary.sample.n));
    }
    summary.ci_low = summary.sample.mean - half;
    summary.ci_high = summary.sample.mean + half;
    return summary;
  }

 private:
  double alpha_;
  std::vector<double> quantiles_;
};

void require_two(const std::vector<GroupRun>& group) {
  if (group.size() < 2) {
    throw UsageError("a group of runs needs at least two reports, got " +
                     std::to_string(group.size()));
  }
}

}  // namespace

GroupComparison compare_groups(const std::vector<GroupRun>& baseline,
                               const std::vector<GroupRun>& candidate,
                               const GroupSelection& selection, const GroupTest& test) {
  require_two(baseline);
  require_two(candidate);
  std::vector<GroupRun> runs = baseline;
  runs.insert(runs.end(), candidate.begin(), candidate.end());
  GroupValues gathered = gather(runs, selection);
  GroupComparison comparison;
  const auto labels = callpath_labels(gathered.united.header);
  const std::size_t nb = baseline.size();
  const std::size_t nc = candidate.size();
  Summarizer summarize(test.alpha);
  for (std::size_t k = 0; k < gathered.metrics.size(); ++k) {
    const auto& per_run = gathered.values[k];
    double scale = mean_of(gathered.root_totals[k], 0, nb);
    if (scale == 0) scale = mean_of(gathered.root_totals[k], nb, nc);
    for (std::size_t c = 0; c < labels.size(); ++c) {
      const auto before = column(per_run, 0, nb, c);
      const auto after = column(per_run, nb, nc, c);
      const bool all_zero = std::all_of(before.begin(), before.end(), [](double v) { return v == 0; }) &&
                            std::all_of(after.begin(), after.end(), [](double v) { return v == 0; });
      if (all_zero) continue;
      GroupComparisonRow row;
      row.metric = gathered.metrics[k];
      row.callpath = c;
      row.label = labels[c];
      row.baseline = summarize(before);
      row.candidate = summarize(after);
      const double base = row.baseline.sample.mean;
      const double difference = row.candidate.sample.mean - base;
      if (base != 0) row.change = difference / std::fabs(base);
      row.p_value = stats::welch_test(row.baseline.sample, row.candidate.sample).p_value;
      // A call path new in the candidate has an unbounded relative change.
      const bool big_enough = !row.change || std::fabs(*row.change) >= test.min_change;
      row.significant = row.p_value < test.alpha && big_enough;
      row.share = scale == 0 ? 0.0 : std::fabs(difference) / std::fabs(scale);
      comparison.rows.push_back(std::move(row));
    }
  }
  std::stable_sort(comparison.rows.begin(), comparison.rows.end(),
                   [](const GroupComparisonRow& a, const GroupComparisonRow& b) {
                     if (a.significant != b.significant) return a.significant;
                     if (a.share != b.share) return a.share > b.share;
                     return a.p_value < b.p_value;
                   });
  comparison.united = std::move(gathered.united);
  return comparison;
}

NoiseReport noise_report(const std::vector<GroupRun>& runs, const GroupSelection& selection,
                         const NoiseTarget& target) {
  require_two(runs);
  GroupValues gathered = gather(runs, selection);
  NoiseReport report;
  const auto labels = callpath_labels(gathered.united.header);
  Summarizer summarize(target.alpha);
  for (std::size_t k = 0; k < gathered.metrics.size(); ++k) {
    const double scale = mean_of(gathered.root_totals[k], 0, runs.size());
    for (std::size_t c = 0; c < labels.size(); ++c) {
      const auto values = column(gathered.values[k], 0, runs.size(), c);
      if (std::all_of(values.begin(), values.end(), [](double v) { return v == 0; })) continue;
      NoiseRow row;
      row.metric = gathered.metrics[k];
      row.callpath = c;
      row.label = labels[c];
      row.summary = summarize(values);
      const double mean = row.summary.sample.mean;
      if (mean != 0) {
        row.cv = row.summary.sample.stddev / std::fabs(mean);
        row.runs_needed = stats::runs_needed(*row.cv, target.change, target.alpha, target.power);
      }
      row.share = scale == 0 ? 0.0 : std::fabs(mean) / std::fabs(scale);
      report.rows.push_back(std::move(row));
    }
  }
  std::stable_sort(report.rows.begin(), report.rows.end(),
                   [](const NoiseRow& a, const NoiseRow& b) { return a.share > b.share; });
  report.united = std::move(gathered.united);
  return report;
}

}  // namespace orrery::report

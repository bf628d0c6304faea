#include "group_view.h"

#include <algorithm>
#include <filesystem>
#include <set>
#include <utility>

#include "group_inputs.h"
#include "orrery/error.h"
#include "orrery/report/algebra.h"
#include "run_record.h"

namespace orrery::viewer {
namespace {

using nlohmann::json;
namespace tools = report::tools;

/// Every run's reader, baseline runs first; shared by both mean reports' loaders.
struct GroupReaders {
  std::vector<std::unique_ptr<report::CubeReader>> readers;
  report::CubeUnion united;
};

/// A group's mean of metric `m` in the united rows: the runs' values summed
/// and divided by the group's size (a row a run lacks counts as 0 there).
report::MetricValues group_mean(const GroupReaders& all, std::size_t first, std::size_t count,
                                std::size_t m) {
  report::MetricValues mean(all.united.header.callpaths.size() * all.united.header.locations.size(), 0.0);
  for (std::size_t input = first; input < first + count; ++input) {
    const auto own_row = all.united.input_metric(input, m);
    if (!own_row) continue;
    const auto values = report::remap(all.united, input, all.readers[input]->read_metric(*own_row));
    for (std::size_t i = 0; i < mean.size(); ++i) mean[i] += values[i];
  }
  for (double& value : mean) value /= static_cast<double>(count);
  return mean;
}

json optional_number(const std::optional<double>& value) { return value ? json(*value) : json(nullptr); }

json summary_json(const report::GroupSummary& summary) {
  return {{"n", summary.sample.n},
          {"mean", summary.sample.mean},
          {"stddev", summary.sample.stddev},
          {"ci", {summary.ci_low, summary.ci_high}}};
}

/// What `orrery runs` shows of one run, or why nothing is known.
json run_json(const std::string& path, const report::CubeReader& reader) {
  json run = {{"path", path}};
  try {
    const std::string record_path = tools::find_run_json(path, reader.header().attributes.experiment);
    if (record_path.empty()) {
      run["why_no_record"] = "no run.json next to the report (it was not made by orrery run here)";
      return run;
    }
    const tools::RunRecord record = tools::read_run_record(path, record_path);
    run["program"] = record.program;
    run["command"] = record.command;
    run["ranks"] = record.ranks ? json(*record.ranks) : json(nullptr);
    run["hosts"] = record.hosts;
    run["start"] = record.start;
    run["duration_s"] = optional_number(record.duration_s);
    run["complete"] = record.complete ? json(*record.complete) : json(nullptr);
    run["params"] = record.params;
    json environment = json::object();
    for (const auto& [name, value] : record.environment) environment[name] = value ? json(*value) : json(nullptr);
    run["environment"] = std::move(environment);
  } catch (const Error& e) {
    run["why_no_record"] = e.what();
  }
  return run;
}

/// The group comparison behind the Groups view.
class ComparedGroups : public GroupStatistics {
 public:
  ComparedGroups(report::GroupComparison comparison, report::GroupTest test, json baseline, json candidate)
      : comparison_(std::move(comparison)),
        test_(test),
        baseline_(std::move(baseline)),
        candidate_(std::move(candidate)) {}

  [[nodiscard]] json rows(std::optional<std::size_t> metric, const std::vector<bool>& keep,
                          std::size_t top) const override {
    json rows = json::array();
    std::size_t matching = 0;
    std::size_t significant = 0;
    const auto& metrics = comparison_.united.header.metrics;
    for (const report::GroupComparisonRow& row : comparison_.rows) {
      if (metric && row.metric != *metric) continue;
      if (!keep.empty() && (row.callpath >= keep.size() || !keep[row.callpath])) continue;
      ++matching;
      significant += row.significant ? 1 : 0;
      if (rows.size() >= top) continue;
      rows.push_back({{"metric", row.metric},
                      {"metric_name", metrics[row.metric].name},
                      {"unit", metrics[row.metric].unit},
                      {"callpath", row.callpath},
                      {"label", row.label},
                      {"baseline", summary_json(row.baseline)},
                      {"candidate", summary_json(row.candidate)},
                      {"change", optional_number(row.change)},
                      {"p_value", row.p_value},
                      {"significant", row.significant},
                      {"share", row.share}});
    }
    return {{"rows", std::move(rows)}, {"matching", matching}, {"significant", significant}};
  }

  [[nodiscard]] json summary() const override {
    // Runs of different programs were allowed explicitly (--allow-different-programs): say so.
    std::set<std::string> programs;
    for (const json* group : {&baseline_, &candidate_}) {
      for (const auto& run : *group) {
        if (run.contains("program") && !run["program"].get<std::string>().empty()) programs.insert(run["program"].get<std::string>());
      }
    }
    return {{"alpha", test_.alpha},
            {"min_change", test_.min_change},
            {"test", "Welch's t-test (two-sided)"},
            {"values", "per metric (with its sub-metrics) and call path (exclusive): the value summed over a run's "
                       "processes, as orrery compare --baseline/--candidate prints it"},
            {"baseline", baseline_},
            {"candidate", candidate_},
            {"programs", programs},
            {"rows", comparison_.rows.size()}};
  }

 private:
  report::GroupComparison comparison_;
  report::GroupTest test_;
  json baseline_;
  json candidate_;
};

std::string group_label(const char* name, std::size_t runs) {
  return std::string(name) + " (mean of " + std::to_string(runs) + " runs)";
}

}  // namespace

OpenedGroups open_groups(const std::vector<std::string>& baseline, const std::vector<std::string>& candidate,
                         const report::GroupTest& test, bool allow_different_programs) {
  for (const auto* group : {&baseline, &candidate}) {
    if (group->size() < 2) {
      throw UsageError(std::string(group == &baseline ? "--baseline" : "--candidate") + " has " +
                       std::to_string(group->size()) +
                       " report(s); the statistics need at least 2 runs per group (repeat the run)");
    }
  }
  auto all = std::make_shared<GroupReaders>();
  std::vector<std::string> seen;
  for (const auto* group : {&baseline, &candidate}) {
    for (auto& reader : tools::open_group(*group, seen)) all->readers.push_back(std::move(reader));
  }
  std::vector<std::string> paths = baseline;
  paths.insert(paths.end(), candidate.begin(), candidate.end());
  const auto runs = tools::group_runs(paths, all->readers);
  if (!allow_different_programs) tools::check_same_program(runs);
  const std::vector<report::GroupRun> baseline_runs(runs.begin(), runs.begin() + static_cast<std::ptrdiff_t>(baseline.size()));
  const std::vector<report::GroupRun> candidate_runs(runs.begin() + static_cast<std::ptrdiff_t>(baseline.size()), runs.end());
  report::GroupComparison comparison =
      report::compare_groups(baseline_runs, candidate_runs, report::GroupSelection{}, test);
  // compare_groups unites the headers in the same order, so its rows are the trees' rows.
  all->united = comparison.united;
  json baseline_json = json::array();
  json candidate_json = json::array();
  for (std::size_t i = 0; i < runs.size(); ++i) {
    (i < baseline.size() ? baseline_json : candidate_json).push_back(run_json(paths[i], *all->readers[i]));
  }
  OpenedGroups opened;
  const std::size_t nb = baseline.size();
  const std::size_t nc = candidate.size();
  opened.baseline_mean = std::make_shared<ReportData>(
      group_label("baseline", nb), all->united.header,
      [all, nb](std::size_t m) { return group_mean(*all, 0, nb, m); });
  opened.candidate_mean = std::make_shared<ReportData>(
      group_label("candidate", nc), all->united.header,
      [all, nb, nc](std::size_t m) { return group_mean(*all, nb, nc, m); });
  opened.statistics = std::make_shared<ComparedGroups>(std::move(comparison), test, std::move(baseline_json),
                                                       std::move(candidate_json));
  return opened;
}

}  // namespace orrery::viewer

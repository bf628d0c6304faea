#pragma once
// The viewer's JSON API, independent of HTTP: each endpoint takes the query
// parameters and returns a JSON document. Comparing two reports, rows are
// those of the union of both (see comparison.h): the first report's rows,
// then the second's unmatched ones; a report lacking a row counts as 0 there.

#include <array>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "comparison.h"
#include "findings.h"
#include "group_statistics.h"
#include "orrery/error.h"
#include "report_data.h"
#include "run_analyses.h"
#include "timeline_data.h"

namespace orrery::viewer {

/// A request for something this server does not have (HTTP 404), e.g. the
/// timeline of a report whose trace is not at hand.
class NotFoundError : public Error {
 public:
  explicit NotFoundError(const std::string& message) : Error(message, kExitBadInput) {}
};

/// Query parameters of one request.
using Params = std::map<std::string, std::string>;

/// Answers the API requests for one report, optionally compared with another.
class ViewerApi {
 public:
  explicit ViewerApi(std::shared_ptr<ReportData> report,
                     std::shared_ptr<ReportData> other = nullptr);

  /// Routes `/api/<endpoint>`; throws UsageError (bad parameters) or InputError (bad report).
  [[nodiscard]] nlohmann::json handle(const std::string& endpoint, const Params& params);

  /// The trace behind the first (`run` 0) or the other report (1) for the
  /// trace endpoints (their parameter `run`), or none and why.
  void set_timeline(std::shared_ptr<TimelineSource> timeline, std::string why_none = {},
                    std::size_t run = 0);

  /// Adds a source of findings (the wait-state findings are always there).
  void add_findings_source(std::unique_ptr<FindingSource> source);

  /// The run records (run.json) of the first (index 0) and other (1) report, or null and why.
  void set_run_record(std::size_t index, nlohmann::json record, std::string why_none = {});

  /// The statistics of groups of runs (`orrery view --baseline … --candidate …`),
  /// whose mean reports are the two reports.
  void set_groups(std::shared_ptr<GroupStatistics> groups) { groups_ = std::move(groups); }

  /// The experiment directory of the first (0) or other (1) run: where its
  /// measurement records (the process topology) are.
  void set_experiment(std::size_t run, std::string directory) { experiments_.at(run) = std::move(directory); }

  /// The efficiencies, prediction and function groups of the first (0) or other (1) report.
  void set_analyses(std::size_t run, RunAnalyses analyses) { analyses_.at(run) = std::move(analyses); }

  /// Loads every metric of both reports (done in the background at start) until `cancel`.
  void preload(const std::atomic<bool>& cancel);

 private:
  [[nodiscard]] nlohmann::json info() const;
  [[nodiscard]] nlohmann::json header() const;
  [[nodiscard]] nlohmann::json metric_totals();
  [[nodiscard]] nlohmann::json callpaths(const Params& params);
  [[nodiscard]] nlohmann::json locations(const Params& params);
  [[nodiscard]] nlohmann::json heatmap(const Params& params);
  [[nodiscard]] nlohmann::json timeline_info(const Params& params);
  /// Why run `run`'s trace seems not to be its report's (other rank count, no shared region), or empty.
  [[nodiscard]] std::string trace_mismatch(std::size_t run);
  /// The run a trace request asks for (parameter `run`: 0, or 1 when comparing).
  [[nodiscard]] std::size_t trace_run(const Params& params) const;
  /// That run's trace; throws NotFoundError (why there is none).
  [[nodiscard]] TimelineSource& trace(std::size_t run) const;
  [[nodiscard]] nlohmann::json timeline(const Params& params);
  [[nodiscard]] nlohmann::json timeline_instance(const Params& params);
  // api_views.cpp: the findings page and the views over the whole trace.
  [[nodiscard]] nlohmann::json findings();
  [[nodiscard]] nlohmann::json facts();
  [[nodiscard]] nlohmann::json utilization(const Params& params);
  [[nodiscard]] nlohmann::json communication(const Params& params);
  [[nodiscard]] nlohmann::json worst_instance(const Params& params);
  [[nodiscard]] nlohmann::json samples(const Params& params);
  [[nodiscard]] nlohmann::json source(const Params& params);
  [[nodiscard]] nlohmann::json callstack(const Params& params);
  [[nodiscard]] nlohmann::json topology(const Params& params);
  // api_groups.cpp: groups of repeated runs.
  [[nodiscard]] nlohmann::json groups(const Params& params);
  /// The function groups of the load-imbalance analysis (run 0 or 1; `group`: its values per location).
  [[nodiscard]] nlohmann::json function_groups(const Params& params);
  [[nodiscard]] nlohmann::json function_group_windows(const Params& params);
  /// Per call-path row the page sees: whether it lies in `under`'s subtree.
  [[nodiscard]] std::vector<bool> subtree_rows(std::size_t under) const;
  /// The page's call path `row` (of the union when comparing) as a chain of region names from its root.
  [[nodiscard]] std::vector<std::string> callpath_chain(std::size_t row) const;
  /// The window [t0, t1] of a request in `trace` (default: the whole trace).
  [[nodiscard]] std::pair<double, double> trace_window(const Params& params, TimelineSource& trace);
  /// The page's call path whose chain of region names in run `run`'s report is
  /// `path` (else the one it ends with, for a root the trace lacks), or -1.
  [[nodiscard]] int64_t callpath_of(const std::vector<std::string>& path, std::size_t run = 0) const;

  /// Call-path rows the page sees: the first report's, then (comparing) those only the other has.
  [[nodiscard]] std::size_t callpath_rows() const;
  /// Metric rows the page sees, likewise.
  [[nodiscard]] std::size_t metric_rows() const;
  /// Location rows the page sees, likewise.
  [[nodiscard]] std::size_t location_rows() const;
  /// The selection in the first report's rows, or nullopt if only the other report has it.
  [[nodiscard]] std::optional<TreeSelection> in_mine(TreeSelection selection, std::size_t rows) const;
  /// The first report's per-location values in the page's rows (0 where it has none).
  [[nodiscard]] std::vector<double> my_locations(std::vector<double> values) const;
  [[nodiscard]] TreeSelection metric_selection(const Params& params) const;
  [[nodiscard]] TreeSelection callpath_selection(const Params& params) const;
  /// The selection in the other report's rows, or nullopt if it has no match.
  [[nodiscard]] std::optional<TreeSelection> in_other(TreeSelection selection,
                                                      const std::vector<std::size_t>& map) const;

  std::shared_ptr<ReportData> report_;
  std::shared_ptr<ReportData> other_;
  Comparison comparison_;
  std::array<std::shared_ptr<TimelineSource>, 2> timelines_{};
  std::array<std::string, 2> why_no_timeline_{"This view was started without a trace.",
                                              "This view was started without a trace."};
  std::vector<std::unique_ptr<FindingSource>> finding_sources_;
  std::shared_ptr<GroupStatistics> groups_;
  std::array<std::string, 2> experiments_{};
  std::mutex topology_mutex_;
  std::array<std::optional<nlohmann::json>, 2> topologies_{};  ///< read on first request
  std::array<nlohmann::json, 2> run_records_{};
  std::array<RunAnalyses, 2> analyses_{};
  std::array<std::string, 2> why_no_run_record_{"not looked for", "not looked for"};
};

}  // namespace orrery::viewer

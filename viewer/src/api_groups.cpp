// The API's Groups view (the statistics of groups of repeated runs for the
// selected metric under the selected call path; see api.h and
// group_statistics.h) and the function groups of one report's load-imbalance
// analysis (run_analyses.h).

#include <optional>

#include "api.h"
#include "api_params.h"
#include "group_windows.h"

namespace orrery::viewer {

using nlohmann::json;

// GET /api/groups?metric=M|all&under=C|all&top=K
json ViewerApi::groups(const Params& params) {
  if (!groups_) throw NotFoundError("This view compares no groups of runs (start it with --baseline … --candidate …).");
  std::optional<std::size_t> metric;
  if (const auto it = params.find("metric"); it != params.end() && it->second != "all") {
    metric = size_param(params, "metric", metric_rows());
  }
  std::vector<bool> keep;
  if (const auto it = params.find("under"); it != params.end() && it->second != "all") {
    keep = subtree_rows(size_param(params, "under", callpath_rows()));
  }
  json answer = groups_->rows(metric, keep, count_param(params, "top", 50, 1, 5000));
  answer["summary"] = groups_->summary();
  return answer;
}

// GET /api/function_groups?run=0|1&group=G
// Comparing, run=1 is the other report's groups, its processes named by it (location_names).
json ViewerApi::function_groups(const Params& params) {
  const std::size_t run = trace_run(params);
  const RunAnalyses& analyses = analyses_[run];
  std::optional<std::size_t> selected;
  if (params.count("group") != 0U && analyses.groups) {
    selected = size_param(params, "group", analyses.groups->groups.size());
  }
  json answer = function_groups_json(analyses, selected);
  if (answer["available"].get<bool>()) {
    json names = json::array();
    for (const auto& l : (run == 0 ? report_ : other_)->header().locations) {
      names.push_back(!l.name.empty() ? l.name : "rank " + std::to_string(l.rank));
    }
    answer["location_names"] = std::move(names);
    answer["run"] = run;
  }
  return answer;
}

// GET /api/function_group_windows?run=0|1&windows=N (1–64, default 8): the
// groups' time per location in N equal windows of the run, from its trace.
json ViewerApi::function_group_windows(const Params& params) {
  const std::size_t run = trace_run(params);
  const RunAnalyses& analyses = analyses_[run];
  if (!analyses.groups) throw NotFoundError(analyses.why_no_groups);
  TimelineSource& source = trace(run);
  const std::size_t windows = count_param(params, "windows", 8, 1, 64);
  json answer = group_windows(source, (run == 0 ? report_ : other_)->header(), *analyses.groups, windows);
  answer["run"] = run;
  return answer;
}

}  // namespace orrery::viewer

// The API's Groups view: the statistics of groups of repeated runs for the
// selected metric under the selected call path; see api.h and group_statistics.h.

#include <optional>

#include "api.h"
#include "api_params.h"

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

}  // namespace orrery::viewer

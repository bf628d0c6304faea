#include "run_analyses.h"

#include <cmath>

#include "orrery/error.h"
#include "orrery/report/group_load.h"

namespace orrery::viewer {

using nlohmann::json;

json efficiency_facts(const RunAnalyses& analyses) {
  json rows = nullptr;
  if (!analyses.efficiencies.empty()) {
    rows = json::array();
    for (const auto& e : analyses.efficiencies) {
      rows.push_back({{"name", e.name}, {"value", e.value}, {"description", e.description}});
    }
  }
  const auto& p = analyses.prediction;
  return {{"efficiency", std::move(rows)},
          {"what_if", p ? json(p->what_if) : json(nullptr)},
          {"predicted_runtime", p ? json(p->predicted_runtime) : json(nullptr)},
          {"efficiency_error", analyses.why_no_efficiency.empty() ? json(nullptr) : json(analyses.why_no_efficiency)}};
}

json function_groups_json(const RunAnalyses& analyses, std::optional<std::size_t> selected) {
  if (!analyses.groups) return {{"available", false}, {"reason", analyses.why_no_groups}};
  const report::FunctionGroups& groups = *analyses.groups;
  if (selected && *selected >= groups.groups.size()) {
    throw UsageError("group " + std::to_string(*selected) + " does not exist (the report has " +
                     std::to_string(groups.groups.size()) + " function groups)");
  }
  json list = json::array();
  for (std::size_t g = 0; g < groups.groups.size(); ++g) {
    const auto& group = groups.groups[g];
    const report::GroupLoad load = report::group_load(groups, g);
    list.push_back({{"row", g}, {"name", group.name}, {"parent", group.parent},
                    {"similarity", group.similarity}, {"total", load.total}, {"mean", load.mean},
                    {"max", load.max}, {"max_location", load.max_location}, {"imbalance", load.imbalance}});
  }
  json answer = {{"available", true}, {"locations", groups.locations}, {"groups", std::move(list)}};
  if (selected) {
    json values = json::array();
    for (std::size_t l = 0; l < groups.locations; ++l) {
      const double v = groups.time[*selected * groups.locations + l];
      values.push_back(std::isnan(v) ? json(nullptr) : json(v));
    }
    answer["selected"] = *selected;
    answer["values"] = std::move(values);
  }
  return answer;
}

}  // namespace orrery::viewer

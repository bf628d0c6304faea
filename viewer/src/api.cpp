#include "api.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

#include "orrery/error.h"

namespace orrery::viewer {
namespace {

using nlohmann::json;

std::size_t size_param(const Params& params, const std::string& name, std::size_t limit) {
  const auto it = params.find(name);
  if (it == params.end()) throw UsageError("missing parameter '" + name + "'");
  std::size_t value = 0;
  std::size_t used = 0;
  try {
    value = std::stoul(it->second, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != it->second.size() || value >= limit) {
    throw UsageError("parameter '" + name + "' must be a row below " + std::to_string(limit));
  }
  return value;
}

bool flag_param(const Params& params, const std::string& name, bool fallback) {
  const auto it = params.find(name);
  if (it == params.end()) return fallback;
  if (it->second == "1" || it->second == "true") return true;
  if (it->second == "0" || it->second == "false") return false;
  throw UsageError("parameter '" + name + "' must be 0 or 1");
}

json header_json(const report::CubeHeader& h) {
  json metrics = json::array();
  for (const auto& m : h.metrics) {
    metrics.push_back({{"name", m.name},
                       {"display_name", m.display_name},
                       {"parent", m.parent},
                       {"unit", m.unit},
                       {"description", m.description},
                       {"diagnosis", m.diagnosis}});
  }
  json regions = json::array();
  for (const auto& r : h.regions) {
    regions.push_back(
        {{"name", r.name}, {"file", r.file}, {"line", r.line}, {"paradigm", r.paradigm}});
  }
  std::vector<int32_t> parents;
  std::vector<int32_t> region_rows;
  for (const auto& c : h.callpaths) {
    parents.push_back(c.parent);
    region_rows.push_back(c.region);
  }
  json locations = json::array();
  for (const auto& l : h.locations) {
    locations.push_back(
        {{"rank", l.rank}, {"thread", l.thread}, {"node", l.node}, {"name", l.name}});
  }
  return {{"attributes",
           {{"creator", h.attributes.creator},
            {"experiment", h.attributes.experiment},
            {"created", h.attributes.created}}},
          {"metrics", std::move(metrics)},
          {"regions", std::move(regions)},
          {"callpaths", {{"parent", std::move(parents)}, {"region", std::move(region_rows)}}},
          {"locations", std::move(locations)}};
}

}  // namespace

ViewerApi::ViewerApi(std::shared_ptr<ReportData> report, std::shared_ptr<ReportData> other)
    : report_(std::move(report)), other_(std::move(other)) {
  if (other_) comparison_ = match_reports(report_->header(), other_->header());
}

json ViewerApi::handle(const std::string& endpoint, const Params& params) {
  if (endpoint == "info") return info();
  if (endpoint == "header") return header();
  if (endpoint == "metrics") return metric_totals();
  if (endpoint == "callpaths") return callpaths(params);
  if (endpoint == "locations") return locations(params);
  if (endpoint == "heatmap") return heatmap(params);
  throw UsageError("no API endpoint '" + endpoint + "'");
}

void ViewerApi::preload(const std::atomic<bool>& cancel) {
  for (ReportData* data : {report_.get(), other_.get()}) {
    if (data != nullptr) data->preload(cancel);
  }
}

json ViewerApi::info() const {
  json reports = json::array({report_->label()});
  if (other_) reports.push_back(other_->label());
  json unmatched = nullptr;
  if (other_) {
    const auto count = [](const std::vector<std::size_t>& map) {
      return std::count(map.begin(), map.end(), Comparison::kNoMatch);
    };
    unmatched = {{"metrics", count(comparison_.metrics)},
                 {"callpaths", count(comparison_.callpaths)},
                 {"other_callpaths", comparison_.b_only_parents.size()},
                 {"locations", count(comparison_.locations)}};
  }
  return {{"reports", std::move(reports)}, {"unmatched", std::move(unmatched)}};
}

// Comparing, the call tree is the union of both runs': the other run's own
// call paths follow the first report's, with their regions appended.
json ViewerApi::header() const {
  json result = header_json(report_->header());
  if (!other_) return result;
  const auto& b = other_->header();
  const std::size_t n_a = report_->callpath_count();
  std::map<int32_t, int32_t> region_rows;  // b's region row -> row in the answer
  for (std::size_t i = 0; i < comparison_.b_only_parents.size(); ++i) {
    const auto& b_callpath = b.callpaths[comparison_.union_to_b[n_a + i]];
    auto [it, added] = region_rows.emplace(b_callpath.region, static_cast<int32_t>(result["regions"].size()));
    if (added) {
      const auto row = static_cast<std::size_t>(b_callpath.region);
      const report::Region unknown{"?", "", 0, ""};
      const auto& r = row < b.regions.size() ? b.regions[row] : unknown;
      result["regions"].push_back(
          {{"name", r.name}, {"file", r.file}, {"line", r.line}, {"paradigm", r.paradigm}});
    }
    result["callpaths"]["parent"].push_back(comparison_.b_only_parents[i]);
    result["callpaths"]["region"].push_back(it->second);
  }
  result["callpaths"]["other_only_from"] = n_a;
  return result;
}

std::size_t ViewerApi::callpath_rows() const {
  return other_ ? comparison_.union_to_b.size() : report_->callpath_count();
}

// Never waits for a load: totals not computed yet are null, and `complete`
// tells the page whether to ask again. The page paints at once with what is ready.
json ViewerApi::metric_totals() {
  auto mine = report_->metric_totals_so_far();
  bool complete = std::none_of(mine.begin(), mine.end(), [](double v) { return std::isnan(v); });
  json result = {{"values", std::move(mine)}};
  if (other_) {
    auto theirs = other_->metric_totals_so_far();
    complete = complete && std::none_of(theirs.begin(), theirs.end(), [](double v) { return std::isnan(v); });
    result["other"] = project(theirs, comparison_.metrics);
  }
  result["complete"] = complete;
  return result;
}

TreeSelection ViewerApi::metric_selection(const Params& params) const {
  return {size_param(params, "metric", report_->header().metrics.size()),
          flag_param(params, "metric_incl", true)};
}

TreeSelection ViewerApi::callpath_selection(const Params& params) const {
  if (const auto it = params.find("callpath"); it != params.end() && it->second == "all") {
    return {kAllCallpaths, flag_param(params, "callpath_incl", true)};
  }
  return {size_param(params, "callpath", callpath_rows()),
          flag_param(params, "callpath_incl", true)};
}

std::optional<TreeSelection> ViewerApi::in_other(TreeSelection selection,
                                                 const std::vector<std::size_t>& map) const {
  if (selection.row == kAllCallpaths) return selection;  // the other run's whole program
  if (map[selection.row] == Comparison::kNoMatch) return std::nullopt;
  return TreeSelection{map[selection.row], selection.inclusive};
}

json ViewerApi::callpaths(const Params& params) {
  const TreeSelection metric = metric_selection(params);
  auto values = report_->callpath_values(metric);
  // Call paths only the other run has are 0 in this one.
  values.exclusive.resize(callpath_rows(), 0.0);
  values.inclusive.resize(callpath_rows(), 0.0);
  json result = {{"exclusive", std::move(values.exclusive)},
                 {"inclusive", std::move(values.inclusive)}};
  if (other_) {
    const std::size_t n = callpath_rows();
    ReportData::CallpathValues theirs{std::vector<double>(n, 0.0), std::vector<double>(n, 0.0)};
    if (const auto m = in_other(metric, comparison_.metrics)) {
      const auto raw = other_->callpath_values(*m);
      theirs = {project(raw.exclusive, comparison_.union_to_b),
                project(raw.inclusive, comparison_.union_to_b)};
    }
    result["other"] = {{"exclusive", std::move(theirs.exclusive)},
                       {"inclusive", std::move(theirs.inclusive)}};
  }
  return result;
}

json ViewerApi::locations(const Params& params) {
  const TreeSelection metric = metric_selection(params);
  const TreeSelection callpath = callpath_selection(params);
  const bool only_other = callpath.row != kAllCallpaths && callpath.row >= report_->callpath_count();
  json result = {{"values", only_other ? std::vector<double>(report_->location_count(), 0.0)
                                       : report_->location_values(metric, callpath)}};
  if (other_) {
    std::vector<double> theirs(report_->location_count(), 0.0);
    const auto m = in_other(metric, comparison_.metrics);
    const auto c = in_other(callpath, comparison_.union_to_b);
    if (m && c) theirs = project(other_->location_values(*m, *c), comparison_.locations);
    result["other"] = std::move(theirs);
  }
  return result;
}

// The call paths where the selected metric is largest, with one row of
// per-location values each: the data of the process x call path heat map.
json ViewerApi::heatmap(const Params& params) {
  const TreeSelection metric = metric_selection(params);
  std::size_t top = 20;
  if (params.count("top") != 0) top = size_param(params, "top", 201);
  const auto totals = report_->callpath_values(metric).exclusive;
  std::vector<std::size_t> order(totals.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  top = std::min(top, order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(top), order.end(),
                    [&](std::size_t x, std::size_t y) {
                      return totals[x] != totals[y] ? totals[x] > totals[y] : x < y;
                    });
  order.resize(top);
  std::erase_if(order, [&](std::size_t c) { return totals[c] == 0.0; });
  return {{"callpaths", order}, {"values", report_->callpath_rows(metric, order)}};
}

}  // namespace orrery::viewer

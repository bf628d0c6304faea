#include "api.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>
#include <utility>

#include "api_params.h"
#include "callpath_match.h"
#include "critical_overlay.h"
#include "orrery/error.h"

namespace orrery::viewer {
namespace {

using nlohmann::json;

/// The timeline outlines at most this many critical call paths per rank (each is one pass over the rank's instances).
constexpr std::size_t kCriticalPathsPerRank = 32;

json metric_json(const report::Metric& m) {
  return {{"name", m.name},
          {"display_name", m.display_name},
          {"parent", m.parent},
          {"unit", m.unit},
          {"description", m.description},
          {"diagnosis", m.diagnosis}};
}

json location_json(const report::Location& l) {
  return {{"rank", l.rank}, {"thread", l.thread}, {"node", l.node}, {"name", l.name}};
}

json header_json(const report::CubeHeader& h) {
  json metrics = json::array();
  for (const auto& m : h.metrics) metrics.push_back(metric_json(m));
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
  for (const auto& l : h.locations) locations.push_back(location_json(l));
  return {{"attributes",
           {{"creator", h.attributes.creator},
            {"experiment", h.attributes.experiment},
            {"created", h.attributes.created}}},
          {"metrics", std::move(metrics)},
          {"regions", std::move(regions)},
          {"callpaths", {{"parent", std::move(parents)}, {"region", std::move(region_rows)}}},
          {"locations", std::move(locations)}};
}

// The `top` rows with the largest keys (ties: lower row first), without zeros.
std::vector<std::size_t> largest_rows(const std::vector<double>& keys, std::size_t top) {
  std::vector<std::size_t> order(keys.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  top = std::min(top, order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(top), order.end(),
                    [&](std::size_t x, std::size_t y) {
                      return keys[x] != keys[y] ? keys[x] > keys[y] : x < y;
                    });
  order.resize(top);
  std::erase_if(order, [&](std::size_t c) { return keys[c] == 0.0; });
  return order;
}

/// A call's messages for the hover: [peer, bytes, tag], at most 32 (and how many).
json message_ends(const std::vector<analyzer::timeline::MessageEnd>& ends) {
  json list = json::array();
  for (std::size_t i = 0; i < ends.size() && i < 32; ++i) list.push_back({ends[i].peer, ends[i].bytes, ends[i].tag});
  return {{"count", ends.size()}, {"list", std::move(list)}};
}

/// The call path of `h` whose chain of region names is `path`, else the first
/// that ends with it (a root the trace lacks), or -1.
int64_t find_callpath(const report::CubeHeader& h, const std::vector<std::string>& path) {
  const auto name_of = [&h](std::size_t c) -> const std::string& {
    return h.regions.at(static_cast<std::size_t>(h.callpaths[c].region)).name;
  };
  // Chains of every call path, built parent-first (pre-order).
  std::vector<std::vector<std::string>> chains(h.callpaths.size());
  int64_t suffix_match = -1;
  for (std::size_t c = 0; c < h.callpaths.size(); ++c) {
    const int32_t parent = h.callpaths[c].parent;
    if (parent >= 0 && static_cast<std::size_t>(parent) < c) chains[c] = chains[static_cast<std::size_t>(parent)];
    chains[c].push_back(name_of(c));
    if (chains[c] == path) return static_cast<int64_t>(c);
    if (suffix_match < 0 && chains[c].size() > path.size() &&
        std::equal(path.rbegin(), path.rend(), chains[c].rbegin())) {
      suffix_match = static_cast<int64_t>(c);
    }
  }
  return suffix_match;
}

}  // namespace

ViewerApi::ViewerApi(std::shared_ptr<ReportData> report, std::shared_ptr<ReportData> other)
    : report_(std::move(report)), other_(std::move(other)) {
  if (other_) comparison_ = match_reports(report_->header(), other_->header());
  finding_sources_.push_back(std::make_unique<WaitStateFindings>());
}

json ViewerApi::handle(const std::string& endpoint, const Params& params) {
  if (endpoint == "info") return info();
  if (endpoint == "header") return header();
  if (endpoint == "metrics") return metric_totals();
  if (endpoint == "callpaths") return callpaths(params);
  if (endpoint == "locations") return locations(params);
  if (endpoint == "heatmap") return heatmap(params);
  if (endpoint == "timeline_info") return timeline_info(params);
  if (endpoint == "timeline") return timeline(params);
  if (endpoint == "timeline_instance") return timeline_instance(params);
  if (endpoint == "findings") return findings();
  if (endpoint == "facts") return facts();
  if (endpoint == "utilization") return utilization(params);
  if (endpoint == "communication") return communication(params);
  if (endpoint == "worst_instance") return worst_instance(params);
  if (endpoint == "groups") return groups(params);
  if (endpoint == "function_groups") return function_groups(params);
  if (endpoint == "function_group_windows") return function_group_windows(params);
  if (endpoint == "samples") return samples(params);
  if (endpoint == "source") return source(params);
  if (endpoint == "callstack") return callstack(params);
  if (endpoint == "topology") return topology(params);
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
                 {"locations", count(comparison_.locations)},
                 {"other_metrics", comparison_.b_only_metric_parents.size()},
                 {"other_locations", comparison_.location_union_to_b.size() - comparison_.locations.size()}};
  }
  return {{"reports", std::move(reports)}, {"unmatched", std::move(unmatched)}, {"groups", groups_ != nullptr}};
}

// Comparing, the trees are the unions of both runs': the other run's own call
// paths follow the first report's, with their regions appended; its own
// metrics and locations follow the first report's, marked "other_only".
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
  const std::size_t n_metrics = report_->header().metrics.size();
  for (std::size_t i = 0; i < comparison_.b_only_metric_parents.size(); ++i) {
    json metric = metric_json(b.metrics[comparison_.metric_union_to_b[n_metrics + i]]);
    metric["parent"] = comparison_.b_only_metric_parents[i];
    metric["other_only"] = true;
    result["metrics"].push_back(std::move(metric));
  }
  for (std::size_t l = report_->location_count(); l < comparison_.location_union_to_b.size(); ++l) {
    json location = location_json(b.locations[comparison_.location_union_to_b[l]]);
    location["other_only"] = true;
    result["locations"].push_back(std::move(location));
  }
  return result;
}

std::size_t ViewerApi::callpath_rows() const {
  return other_ ? comparison_.union_to_b.size() : report_->callpath_count();
}

std::size_t ViewerApi::metric_rows() const {
  return other_ ? comparison_.metric_union_to_b.size() : report_->header().metrics.size();
}

std::size_t ViewerApi::location_rows() const {
  return other_ ? comparison_.location_union_to_b.size() : report_->location_count();
}

std::vector<double> ViewerApi::my_locations(std::vector<double> values) const {
  values.resize(location_rows(), 0.0);  // processes only the other run has are 0 in this one
  return values;
}

// Never waits for a load: totals not computed yet are null, and `complete`
// tells the page whether to ask again. The page paints at once with what is ready.
json ViewerApi::metric_totals() {
  auto mine = report_->metric_totals_so_far();
  bool complete = std::none_of(mine.begin(), mine.end(), [](double v) { return std::isnan(v); });
  mine.resize(metric_rows(), 0.0);  // metrics only the other run has are 0 in this one
  json result = {{"values", std::move(mine)}};
  if (other_) {
    auto theirs = other_->metric_totals_so_far();
    complete = complete && std::none_of(theirs.begin(), theirs.end(), [](double v) { return std::isnan(v); });
    result["other"] = project(theirs, comparison_.metric_union_to_b);
  }
  result["complete"] = complete;
  return result;
}

TreeSelection ViewerApi::metric_selection(const Params& params) const {
  return {size_param(params, "metric", metric_rows()), flag_param(params, "metric_incl", true)};
}

TreeSelection ViewerApi::callpath_selection(const Params& params) const {
  if (const auto it = params.find("callpath"); it != params.end() && it->second == "all") {
    return {kAllCallpaths, flag_param(params, "callpath_incl", true)};
  }
  return {size_param(params, "callpath", callpath_rows()),
          flag_param(params, "callpath_incl", true)};
}

std::optional<TreeSelection> ViewerApi::in_mine(TreeSelection selection, std::size_t rows) const {
  if (selection.row == kAllCallpaths || selection.row < rows) return selection;
  return std::nullopt;
}

std::optional<TreeSelection> ViewerApi::in_other(TreeSelection selection,
                                                 const std::vector<std::size_t>& map) const {
  if (selection.row == kAllCallpaths) return selection;  // the other run's whole program
  if (map[selection.row] == Comparison::kNoMatch) return std::nullopt;
  return TreeSelection{map[selection.row], selection.inclusive};
}

json ViewerApi::callpaths(const Params& params) {
  const TreeSelection metric = metric_selection(params);
  const std::size_t n_mine = report_->callpath_count();
  ReportData::CallpathValues values{std::vector<double>(n_mine, 0.0), std::vector<double>(n_mine, 0.0)};
  if (const auto m = in_mine(metric, report_->header().metrics.size())) values = report_->callpath_values(*m);
  // Call paths (and metrics) only the other run has are 0 in this one.
  values.exclusive.resize(callpath_rows(), 0.0);
  values.inclusive.resize(callpath_rows(), 0.0);
  json result = {{"exclusive", std::move(values.exclusive)},
                 {"inclusive", std::move(values.inclusive)}};
  if (other_) {
    const std::size_t n = callpath_rows();
    ReportData::CallpathValues theirs{std::vector<double>(n, 0.0), std::vector<double>(n, 0.0)};
    if (const auto m = in_other(metric, comparison_.metric_union_to_b)) {
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
  std::vector<double> mine(report_->location_count(), 0.0);
  const auto my_metric = in_mine(metric, report_->header().metrics.size());
  const auto my_callpath = in_mine(callpath, report_->callpath_count());
  if (my_metric && my_callpath) mine = report_->location_values(*my_metric, *my_callpath);
  json result = {{"values", my_locations(std::move(mine))}};
  if (other_) {
    // All of the other run's processes, in the union's location rows.
    std::vector<double> theirs(location_rows(), 0.0);
    const auto m = in_other(metric, comparison_.metric_union_to_b);
    const auto c = in_other(callpath, comparison_.union_to_b);
    if (m && c) theirs = project(other_->location_values(*m, *c), comparison_.location_union_to_b);
    result["other"] = std::move(theirs);
  }
  return result;
}

// The call paths where the selected metric is largest, with one row of
// per-location values each: the data of the process x call path heat map.
// Comparing, the call paths are the union's, ranked by the larger of the two
// runs' totals, and `other` holds the other run's rows over all its processes.
json ViewerApi::heatmap(const Params& params) {
  const TreeSelection metric = metric_selection(params);
  std::size_t top = 20;
  if (params.count("top") != 0) top = size_param(params, "top", 201);
  // "under": only the selected call path and its descendants (the page follows its selection).
  std::vector<bool> keep;
  if (const auto it = params.find("under"); it != params.end() && it->second != "all") {
    const std::size_t under = size_param(params, "under", callpath_rows());
    keep = subtree_rows(under);
  }
  const auto restrict = [&keep](std::vector<double> keys) {
    for (std::size_t c = 0; c < keys.size() && !keep.empty(); ++c) {
      if (!keep[c]) keys[c] = 0.0;
    }
    return keys;
  };
  if (!other_) {
    const auto order = largest_rows(restrict(report_->callpath_values(metric).exclusive), top);
    return {{"callpaths", order}, {"values", report_->callpath_rows(metric, order)}};
  }
  const std::size_t n = callpath_rows();
  std::vector<double> mine(n, 0.0);
  std::vector<double> theirs(n, 0.0);
  const auto my_metric = in_mine(metric, report_->header().metrics.size());
  const auto their_metric = in_other(metric, comparison_.metric_union_to_b);
  if (my_metric) {
    const auto totals = report_->callpath_values(*my_metric).exclusive;
    std::copy(totals.begin(), totals.end(), mine.begin());
  }
  if (their_metric) {
    theirs = project(other_->callpath_values(*their_metric).exclusive, comparison_.union_to_b);
  }
  std::vector<double> keys(n, 0.0);
  for (std::size_t c = 0; c < n; ++c) keys[c] = std::max(std::abs(mine[c]), std::abs(theirs[c]));
  const auto order = largest_rows(restrict(std::move(keys)), top);
  // Each run's rows for the call paths it has; the others stay 0.
  std::vector<std::vector<double>> my_rows(order.size(), std::vector<double>(location_rows(), 0.0));
  std::vector<std::vector<double>> their_rows = my_rows;
  std::vector<std::size_t> my_callpaths, my_at, their_callpaths, their_at;
  for (std::size_t k = 0; k < order.size(); ++k) {
    if (my_metric && order[k] < report_->callpath_count()) {
      my_callpaths.push_back(order[k]);
      my_at.push_back(k);
    }
    if (their_metric && comparison_.union_to_b[order[k]] != Comparison::kNoMatch) {
      their_callpaths.push_back(comparison_.union_to_b[order[k]]);
      their_at.push_back(k);
    }
  }
  if (!my_callpaths.empty()) {
    auto rows = report_->callpath_rows(*my_metric, my_callpaths);
    for (std::size_t i = 0; i < rows.size(); ++i) my_rows[my_at[i]] = my_locations(std::move(rows[i]));
  }
  if (!their_callpaths.empty()) {
    const auto rows = other_->callpath_rows(*their_metric, their_callpaths);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      their_rows[their_at[i]] = project(rows[i], comparison_.location_union_to_b);
    }
  }
  return {{"callpaths", order}, {"values", std::move(my_rows)}, {"other", std::move(their_rows)}};
}

void ViewerApi::set_timeline(std::shared_ptr<TimelineSource> timeline, std::string why_none,
                             std::size_t run) {
  timelines_.at(run) = std::move(timeline);
  if (!why_none.empty()) why_no_timeline_.at(run) = std::move(why_none);
}

std::size_t ViewerApi::trace_run(const Params& params) const {
  if (params.count("run") == 0U) return 0;
  return size_param(params, "run", other_ ? 2 : 1);
}

TimelineSource& ViewerApi::trace(std::size_t run) const {
  if (!timelines_.at(run)) throw NotFoundError(why_no_timeline_.at(run));
  return *timelines_[run];
}

// Comparing, `traces` says which runs have one (the page offers a choice).
json ViewerApi::timeline_info(const Params& params) {
  const std::size_t run = trace_run(params);
  json traces = json::array();
  for (std::size_t r = 0; r < (other_ ? 2U : 1U); ++r) traces.push_back(timelines_[r] != nullptr);
  if (!timelines_[run]) {
    return {{"available", false}, {"reason", why_no_timeline_[run]}, {"run", run}, {"traces", traces}};
  }
  try {
    json answer = timelines_[run]->info();
    if (const std::string doubt = trace_mismatch(run); !doubt.empty()) answer["warning"] = doubt;
    answer["run"] = run;
    answer["traces"] = std::move(traces);
    return answer;
  } catch (const InputError& e) {
    return {{"available", false}, {"reason", e.what()}, {"run", run}, {"traces", traces}};
  }
}

// A trace that does not belong to the report (another run given with --trace)
// still draws, but the page says so: other ranks, or none of the report's regions.
std::string ViewerApi::trace_mismatch(std::size_t run) {
  const auto& defs = timelines_[run]->definitions();
  const auto& h = (run == 0 ? report_ : other_)->header();
  std::set<int32_t> ranks;
  for (const auto& l : h.locations) ranks.insert(l.rank);
  if (ranks.size() != defs.ranks.size()) {
    return "The trace has " + std::to_string(defs.ranks.size()) + " ranks, the report " +
           std::to_string(ranks.size()) + ": it is probably not this report's trace (see --trace).";
  }
  std::set<std::string> names;
  for (const auto& r : defs.regions) names.insert(r.name);
  const bool shared = std::any_of(h.regions.begin(), h.regions.end(),
                                  [&names](const report::Region& r) { return names.count(r.name) != 0; });
  if (!shared && !h.regions.empty()) {
    return "No region of the report is in the trace: it is probably not this report's trace (see --trace).";
  }
  return {};
}

json ViewerApi::timeline(const Params& params) {
  TimelineSource& source = trace(trace_run(params));
  const auto& defs = source.definitions();
  TimelineWindow request;
  request.t0 = time_param(params, "t0", 0);
  request.t1 = time_param(params, "t1", defs.duration > 0 ? defs.duration : 1);
  if (!(request.t1 > request.t0)) throw UsageError("parameter 't1' must be after 't0'");
  constexpr std::size_t kMaxWidth = 16384;
  constexpr std::size_t kMaxRanks = 4096;
  request.width = static_cast<uint32_t>(count_param(params, "width", 1000, 1, kMaxWidth));
  request.first_rank = params.count("first_rank") == 0U
                           ? 0U
                           : static_cast<uint32_t>(size_param(params, "first_rank", defs.ranks.size()));
  request.ranks = static_cast<uint32_t>(count_param(params, "ranks", kMaxRanks, 1, kMaxRanks));
  if (params.count("callpath") != 0U) {
    const std::size_t row = size_param(params, "callpath", callpath_rows());
    request.callpath = trace_chain(defs, callpath_chain(row));
  }
  // critical=1: outline the instances of the call paths on the critical path (the run's own report).
  const bool critical = flag_param(params, "critical", false);
  if (critical) {
    ReportData& own = trace_run(params) == 0 ? *report_ : *other_;
    for (auto& [rank, chains] : critical_path_chains(own, kCriticalPathsPerRank)) {
      for (auto& chain : chains) request.critical[rank].push_back(trace_chain(defs, std::move(chain)));
    }
  }
  json answer = source.window(request);
  if (critical) answer["critical_path"] = !request.critical.empty();
  return answer;
}

json ViewerApi::timeline_instance(const Params& params) {
  const std::size_t run = trace_run(params);
  TimelineSource& source = trace(run);
  const auto& defs = source.definitions();
  const auto rank = static_cast<uint32_t>(size_param(params, "rank", defs.ranks.size()));
  const auto index = static_cast<uint32_t>(size_param(params, "instance", UINT32_MAX));
  const auto found = source.instance(rank, index);
  const int64_t callpath = callpath_of(found.path, run);
  return {{"rank", rank},
          {"instance", index},
          {"region", found.instance.region},
          {"name", defs.regions.at(found.instance.region).name},
          {"begin", found.instance.begin},
          {"end", found.instance.end},
          {"path", found.path},
          {"callpath", callpath < 0 ? json(nullptr) : json(callpath)},
          {"sends", message_ends(found.sends)},
          {"receives", message_ends(found.receives)},
          {"wait", found.wait},
          {"wait_kind", found.wait > 0 ? json("Late Sender") : json(nullptr)},
          {"wait_sender", found.wait > 0 ? json(found.wait_sender) : json(nullptr)}};
}

std::vector<bool> ViewerApi::subtree_rows(std::size_t under) const {
  const std::size_t n_a = report_->callpath_count();
  const auto parent_of = [&](std::size_t c) -> int64_t {
    if (c < n_a) return report_->header().callpaths[c].parent;
    return static_cast<int64_t>(comparison_.b_only_parents[c - n_a]);
  };
  std::vector<bool> keep(callpath_rows(), false);
  for (std::size_t c = 0; c < keep.size(); ++c) {
    // Walk up (call trees are shallow); a parent at or after its child ends the walk.
    for (int64_t at = static_cast<int64_t>(c), steps = 0; at >= 0 && steps < 4096; ++steps) {
      if (static_cast<std::size_t>(at) == under) {
        keep[c] = true;
        break;
      }
      const int64_t up = parent_of(static_cast<std::size_t>(at));
      if (up >= at) break;
      at = up;
    }
  }
  return keep;
}

int64_t ViewerApi::callpath_of(const std::vector<std::string>& path, std::size_t run) const {
  if (run == 1) {
    // The other report's row, then its row in the union the page shows.
    const int64_t b_row = find_callpath(other_->header(), path);
    if (b_row < 0) return -1;
    const auto& to_b = comparison_.union_to_b;
    const auto at = std::find(to_b.begin(), to_b.end(), static_cast<std::size_t>(b_row));
    return at == to_b.end() ? -1 : static_cast<int64_t>(at - to_b.begin());
  }
  return find_callpath(report_->header(), path);
}

}  // namespace orrery::viewer

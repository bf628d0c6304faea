#include "findings.h"

#include <algorithm>
#include <array>
#include <numeric>
#include <string_view>

#include "orrery/error.h"

namespace orrery::viewer {
namespace {

/// The wait-state metrics of docs/design.md §4 (names are a contract).
constexpr std::array<std::string_view, 14> kWaitStates{
    "late_sender", "late_sender_wrong_order", "late_receiver", "wait_at_barrier", "barrier_completion",
    "early_reduce", "early_scan", "late_broadcast", "wait_at_nxn", "nxn_completion",
    "init_completion", "finalize_wait", "wait_at_neighbor", "omp_barrier_wait"};

bool is_wait_state(const std::string& name) {
  return std::find(kWaitStates.begin(), kWaitStates.end(), name) != kWaitStates.end();
}

/// Rows of the largest values (largest first), zeros left out.
std::vector<std::size_t> top_rows(const std::vector<double>& values, std::size_t count) {
  std::vector<std::size_t> order(values.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  count = std::min(count, order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(count), order.end(),
                    [&](std::size_t a, std::size_t b) { return values[a] != values[b] ? values[a] > values[b] : a < b; });
  order.resize(count);
  std::erase_if(order, [&](std::size_t r) { return values[r] <= 0.0; });
  return order;
}

}  // namespace

nlohmann::json Finding::to_json() const {
  return {{"source", source}, {"title", title}, {"metric", metric}, {"value", value}, {"unit", unit},
          {"share", share}, {"callpath", callpath < 0 ? nlohmann::json(nullptr) : nlohmann::json(callpath)},
          {"callpath_value", callpath_value}, {"locations", locations},
          {"location_values", location_values}, {"why", why}, {"advice", advice}, {"score", score}};
}

std::vector<Finding> WaitStateFindings::findings(ReportData& report) {
  const auto& metrics = report.header().metrics;
  // The whole run's time: the inclusive total of the first root in seconds ("time").
  double run_time = 0;
  for (std::size_t m = 0; m < metrics.size(); ++m) {
    if (metrics[m].parent < 0 && metrics[m].unit == "sec") {
      const auto totals = report.callpath_values({m, true}).inclusive;
      for (std::size_t c = 0; c < totals.size(); ++c) {
        if (report.header().callpaths[c].parent < 0) run_time += totals[c];
      }
      break;
    }
  }
  std::vector<Finding> out;
  for (std::size_t m = 0; m < metrics.size(); ++m) {
    if (!is_wait_state(metrics[m].name)) continue;
    // A wait state inside another one (Wrong Order in Late Sender) is part of its parent's finding.
    const int32_t parent = metrics[m].parent;
    if (parent >= 0 && is_wait_state(metrics[static_cast<std::size_t>(parent)].name)) continue;
    const TreeSelection metric{m, true};
    const auto values = report.callpath_values(metric);
    const double total = std::accumulate(values.exclusive.begin(), values.exclusive.end(), 0.0);
    if (total <= 0) continue;
    Finding f;
    f.source = name();
    f.title = metrics[m].display_name.empty() ? metrics[m].name : metrics[m].display_name;
    f.metric = metrics[m].name;
    f.value = total;
    f.unit = metrics[m].unit;
    f.share = run_time > 0 ? total / run_time : 0;
    f.score = total;
    f.advice = metrics[m].diagnosis;
    const auto hottest = top_rows(values.exclusive, 1);
    if (!hottest.empty()) {
      f.callpath = static_cast<int64_t>(hottest.front());
      f.callpath_value = values.exclusive[hottest.front()];
      const auto per_location = report.location_values(metric, {hottest.front(), false});
      for (const std::size_t l : top_rows(per_location, 3)) {
        f.locations.push_back(static_cast<int64_t>(l));
        f.location_values.push_back(per_location[l]);
      }
    }
    f.why = metrics[m].description;
    out.push_back(std::move(f));
  }
  std::sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) { return a.score > b.score; });
  if (out.size() > top_) out.resize(top_);
  return out;
}

nlohmann::json collect_findings(ReportData& report, const std::vector<std::unique_ptr<FindingSource>>& sources) {
  std::vector<Finding> all;
  nlohmann::json notes = nlohmann::json::array();
  for (const auto& source : sources) {
    try {
      auto found = source->findings(report);
      all.insert(all.end(), found.begin(), found.end());
    } catch (const Error& e) {
      notes.push_back(source->name() + ": " + e.what());
    }
  }
  std::stable_sort(all.begin(), all.end(), [](const Finding& a, const Finding& b) { return a.score > b.score; });
  nlohmann::json list = nlohmann::json::array();
  for (const Finding& f : all) list.push_back(f.to_json());
  return {{"findings", std::move(list)}, {"notes", std::move(notes)}};
}

}  // namespace orrery::viewer

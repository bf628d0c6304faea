// The viewer's cube sums, report matching and JSON API, on synthetic cubes
// checked against brute-force sums written independently here.

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "api.h"
#include "comparison.h"
#include "fixture_cube.h"
#include "orrery/error.h"
#include "report_data.h"
#include "token.h"

namespace orrery::viewer {
namespace {

using testing::FixtureSpec;
using testing::make_fixture_cube;

std::shared_ptr<ReportData> data_of(const report::Cube& cube, std::atomic<int>* loads = nullptr) {
  return std::make_shared<ReportData>("fixture", cube.header, [cube, loads](std::size_t m) {
    if (loads != nullptr) ++*loads;
    return cube.values[m];
  });
}

bool is_descendant_or_self(const report::CubeHeader& h, std::size_t node, std::size_t ancestor) {
  for (auto c = static_cast<int32_t>(node); c >= 0; c = h.callpaths[static_cast<std::size_t>(c)].parent) {
    if (static_cast<std::size_t>(c) == ancestor) return true;
  }
  return false;
}

bool metric_below(const report::CubeHeader& h, std::size_t node, std::size_t ancestor) {
  for (auto m = static_cast<int32_t>(node); m >= 0; m = h.metrics[static_cast<std::size_t>(m)].parent) {
    if (static_cast<std::size_t>(m) == ancestor) return true;
  }
  return false;
}

// The value of (metric selection, call path selection, location) by brute force.
double brute_force(const report::Cube& cube, TreeSelection metric, TreeSelection callpath,
                   std::size_t location) {
  const auto& h = cube.header;
  const std::size_t n_loc = h.locations.size();
  double sum = 0.0;
  for (std::size_t m = 0; m < h.metrics.size(); ++m) {
    if (metric.inclusive ? !metric_below(h, m, metric.row) : m != metric.row) continue;
    for (std::size_t c = 0; c < h.callpaths.size(); ++c) {
      if (callpath.inclusive ? !is_descendant_or_self(h, c, callpath.row) : c != callpath.row) continue;
      sum += cube.values[m][c * n_loc + location];
    }
  }
  return sum;
}

TEST(ViewerReportData, SumsMatchBruteForceForEverySelection) {
  const auto cube = make_fixture_cube({.callpaths = 40, .locations = 5, .seed = 7, .scale = 1.0});
  auto data = data_of(cube);
  for (std::size_t m = 0; m < cube.header.metrics.size(); ++m) {
    for (const bool m_incl : {false, true}) {
      const auto calls = data->callpath_values({m, m_incl});
      for (std::size_t c = 0; c < cube.header.callpaths.size(); ++c) {
        double excl_total = 0.0;
        double incl_total = 0.0;
        for (const bool c_incl : {false, true}) {
          const auto per_location = data->location_values({m, m_incl}, {c, c_incl});
          for (std::size_t l = 0; l < per_location.size(); ++l) {
            const double expected = brute_force(cube, {m, m_incl}, {c, c_incl}, l);
            ASSERT_NEAR(per_location[l], expected, 1e-9 * (1.0 + std::abs(expected)));
            (c_incl ? incl_total : excl_total) += expected;
          }
        }
        EXPECT_NEAR(calls.exclusive[c], excl_total, 1e-9 * (1.0 + excl_total));
        EXPECT_NEAR(calls.inclusive[c], incl_total, 1e-9 * (1.0 + incl_total));
      }
    }
  }
}

TEST(ViewerReportData, MetricTotalsAreExclusiveInTheMetricTree) {
  const auto cube = make_fixture_cube({.callpaths = 30, .locations = 3, .seed = 3, .scale = 1.0});
  auto data = data_of(cube);
  const auto totals = data->metric_totals();
  ASSERT_EQ(totals.size(), cube.header.metrics.size());
  for (std::size_t m = 0; m < totals.size(); ++m) {
    double expected = 0.0;
    for (const double v : cube.values[m]) expected += v;
    EXPECT_NEAR(totals[m], expected, 1e-9 * (1.0 + expected)) << cube.header.metrics[m].name;
  }
}

TEST(ViewerReportData, EachMetricIsLoadedOnceUnderConcurrentRequests) {
  const auto cube = make_fixture_cube({.callpaths = 200, .locations = 16, .seed = 5, .scale = 1.0});
  std::atomic<int> loads{0};
  auto data = data_of(cube, &loads);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] { (void)data->location_values({0, true}, {0, true}); });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(loads.load(), 6);  // every metric below "time": 6 rows of the time tree
}

TEST(ViewerReportData, LoaderFailureIsReportedAndRetried) {
  const auto cube = make_fixture_cube({});
  int calls = 0;
  auto data = std::make_shared<ReportData>("broken", cube.header, [&](std::size_t m) {
    if (++calls == 1) throw InputError("broken.h5: cannot read /values/time");
    return cube.values[m];
  });
  EXPECT_THROW((void)data->metric(0), InputError);
  EXPECT_NO_THROW((void)data->metric(0));
}

TEST(ViewerReportData, CacheBudgetEvictsLeastRecentlyUsedMetrics) {
  const auto cube = make_fixture_cube({.callpaths = 40, .locations = 8, .seed = 4, .scale = 1.0});
  std::atomic<int> loads{0};
  auto data = data_of(cube, &loads);
  const std::size_t n_cp = cube.header.callpaths.size();
  const std::size_t per_metric = sizeof(double) * 2 * (n_cp * cube.header.locations.size() + n_cp);
  data->set_cache_budget(2 * per_metric);  // room for two metrics
  const auto unbounded = data_of(cube);
  for (std::size_t m : {0U, 1U, 2U}) (void)data->metric(m);
  EXPECT_LE(data->cached_bytes(), 2 * per_metric);
  EXPECT_EQ(data->metric_if_ready(0), nullptr);  // the least recently used went
  EXPECT_NE(data->metric_if_ready(2), nullptr);
  // An evicted metric is read again, with the same values; its total stays known meanwhile.
  EXPECT_FALSE(std::isnan(data->metric_totals_so_far()[0]));
  EXPECT_EQ(data->metric(0)->inclusive, unbounded->metric(0)->inclusive);
  EXPECT_EQ(loads.load(), 4);
  // Selections over more metrics than fit are still right.
  const auto values = data->location_values({0, true}, {0, true});
  const auto expected = unbounded->location_values({0, true}, {0, true});
  for (std::size_t l = 0; l < values.size(); ++l) EXPECT_DOUBLE_EQ(values[l], expected[l]);
  EXPECT_LE(data->cached_bytes(), 2 * per_metric);
}

TEST(ViewerReportData, TotalsSoFarNeverWaitAndFillInAfterPreload) {
  const auto cube = make_fixture_cube({.callpaths = 30, .locations = 4, .seed = 6, .scale = 1.0});
  auto data = data_of(cube);
  const auto before = data->metric_totals_so_far();
  for (const double v : before) EXPECT_TRUE(std::isnan(v));
  (void)data->metric(1);
  const auto partial = data->metric_totals_so_far();
  EXPECT_TRUE(std::isnan(partial[0]));
  EXPECT_DOUBLE_EQ(partial[1], data->metric(1)->total);
  const std::atomic<bool> cancel{false};
  data->preload(cancel);
  const auto after = data->metric_totals_so_far();
  const auto all = data->metric_totals();
  for (std::size_t m = 0; m < all.size(); ++m) EXPECT_DOUBLE_EQ(after[m], all[m]);
}

TEST(ViewerReportData, WrongValueCountIsAnInputError) {
  const auto cube = make_fixture_cube({});
  ReportData data("short", cube.header, [](std::size_t) { return report::MetricValues(3, 0.0); });
  EXPECT_THROW((void)data.metric(0), InputError);
}

TEST(ViewerComparison, MatchesByNamesChainsAndRanks) {
  const auto a = make_fixture_cube({.callpaths = 50, .locations = 4, .seed = 11, .scale = 1.0});
  auto b = a;
  // b: one metric fewer at the end, one process fewer, one extra leaf call path.
  b.header.metrics.pop_back();
  b.header.locations.pop_back();
  b.header.callpaths.push_back({0, 7});
  const Comparison match = match_reports(a.header, b.header);
  for (std::size_t m = 0; m + 1 < a.header.metrics.size(); ++m) EXPECT_EQ(match.metrics[m], m);
  EXPECT_EQ(match.metrics.back(), Comparison::kNoMatch);
  for (std::size_t l = 0; l + 1 < a.header.locations.size(); ++l) EXPECT_EQ(match.locations[l], l);
  EXPECT_EQ(match.locations.back(), Comparison::kNoMatch);
  // Identical chains of region names match, and the match has the same chain.
  for (std::size_t c = 0; c < a.header.callpaths.size(); ++c) {
    ASSERT_NE(match.callpaths[c], Comparison::kNoMatch);
    const auto bc = match.callpaths[c];
    EXPECT_EQ(a.header.regions[static_cast<std::size_t>(a.header.callpaths[c].region)].name,
              b.header.regions[static_cast<std::size_t>(b.header.callpaths[bc].region)].name);
  }
}

TEST(ViewerApi, ComparingShowsTheUnionOfBothCallTrees) {
  const auto a = make_fixture_cube({.callpaths = 30, .locations = 4, .seed = 2, .scale = 1.0});
  auto b = make_fixture_cube({.callpaths = 30, .locations = 4, .seed = 2, .scale = 2.0});
  // b gets a leaf only it has, below a call path a has too (the first non-root).
  const std::size_t n_a = a.header.callpaths.size();
  b.header.callpaths.push_back({1, 0});
  for (auto& values : b.values) {
    report::MetricValues grown(values);
    grown.resize(values.size() + b.header.locations.size(), 0.5);
    values = std::move(grown);
  }
  ViewerApi api(data_of(a), data_of(b));
  const auto header = api.handle("header", {});
  ASSERT_EQ(header["callpaths"]["parent"].size(), n_a + 1);
  EXPECT_EQ(header["callpaths"]["parent"][n_a], 1);
  EXPECT_EQ(header["callpaths"]["other_only_from"], n_a);
  const auto calls = api.handle("callpaths", {{"metric", "3"}, {"metric_incl", "0"}});
  EXPECT_EQ(calls["exclusive"][n_a], 0.0);  // this run lacks it
  EXPECT_DOUBLE_EQ(calls["other"]["exclusive"][n_a], 0.5 * 4);
  const auto per_rank = api.handle("locations", {{"metric", "3"}, {"metric_incl", "0"},
                                                 {"callpath", std::to_string(n_a)}});
  for (std::size_t l = 0; l < 4; ++l) {
    EXPECT_EQ(per_rank["values"][l], 0.0);
    EXPECT_EQ(per_rank["other"][l], 0.5);
  }
  EXPECT_EQ(api.handle("info", {})["unmatched"]["other_callpaths"], 1);
}

// A scaling-study pair: the first run has 2 ranks, the other 3; each has a
// metric the other lacks (wait_at_barrier only in the other run, under mpi;
// bytes_sent only in the first) and call paths the other lacks (other seeds).
struct RunPair {
  report::Cube a = make_fixture_cube({.callpaths = 30, .locations = 2, .seed = 5, .scale = 1.0});
  report::Cube b = make_fixture_cube({.callpaths = 40, .locations = 3, .seed = 8, .scale = 1.5});
  RunPair() {
    testing::drop_metric(a, "wait_at_barrier");
    testing::drop_metric(b, "bytes_sent");
  }
};

// Row of the call path with this chain of region names in `h`, if any.
std::optional<std::size_t> callpath_named(const report::CubeHeader& h, const std::string& path) {
  for (std::size_t c = 0; c < h.callpaths.size(); ++c) {
    std::string chain;
    for (auto p = static_cast<int32_t>(c); p >= 0; p = h.callpaths[static_cast<std::size_t>(p)].parent) {
      chain = h.regions[static_cast<std::size_t>(h.callpaths[static_cast<std::size_t>(p)].region)].name +
              (chain.empty() ? "" : "/" + chain);
    }
    if (chain == path) return c;
  }
  return std::nullopt;
}

std::optional<std::size_t> metric_named(const report::CubeHeader& h, const std::string& name) {
  for (std::size_t m = 0; m < h.metrics.size(); ++m) {
    if (h.metrics[m].name == name) return m;
  }
  return std::nullopt;
}

// The chain of region names of each call-path row of the API's (union) header.
std::vector<std::string> union_paths(const nlohmann::json& header) {
  std::vector<std::string> paths;
  const auto& parents = header["callpaths"]["parent"];
  for (std::size_t c = 0; c < parents.size(); ++c) {
    const std::size_t region = header["callpaths"]["region"][c];
    const std::string name = header["regions"][region]["name"];
    const int parent = parents[c];
    paths.push_back(parent >= 0 ? paths[static_cast<std::size_t>(parent)] + "/" + name : name);
  }
  return paths;
}

// One run's value of (metric by name, call path by chain, location by rank),
// by brute force over that run's own cube; 0 where the run lacks any of them.
double run_value(const report::Cube& cube, const std::string& metric, bool metric_incl,
                 const std::string& path, bool path_incl, int32_t rank) {
  const auto m = metric_named(cube.header, metric);
  const auto c = callpath_named(cube.header, path);
  for (std::size_t l = 0; l < cube.header.locations.size(); ++l) {
    if (m && c && cube.header.locations[l].rank == rank) return brute_force(cube, {*m, metric_incl}, {*c, path_incl}, l);
  }
  return 0.0;
}

// ... summed over all of the run's processes.
double run_total(const report::Cube& cube, const std::string& metric, bool metric_incl,
                 const std::string& path, bool path_incl) {
  double sum = 0.0;
  for (const auto& l : cube.header.locations) sum += run_value(cube, metric, metric_incl, path, path_incl, l.rank);
  return sum;
}

TEST(ViewerApi, ComparingUnitesProcessesAndMetricsOfBothRuns) {
  const RunPair runs;
  ViewerApi api(data_of(runs.a), data_of(runs.b));
  const auto header = api.handle("header", {});
  // Processes: the first run's 2, then the other run's rank 2, marked.
  ASSERT_EQ(header["locations"].size(), 3U);
  EXPECT_FALSE(header["locations"][1].contains("other_only"));
  EXPECT_EQ(header["locations"][2]["rank"], 2);
  EXPECT_EQ(header["locations"][2]["other_only"], true);
  // Metrics: the first run's 7, then wait_at_barrier under the first run's mpi.
  const auto& metrics = header["metrics"];
  ASSERT_EQ(metrics.size(), runs.a.header.metrics.size() + 1);
  EXPECT_EQ(metrics.back()["name"], "wait_at_barrier");
  EXPECT_EQ(metrics.back()["other_only"], true);
  EXPECT_EQ(metrics.back()["parent"], *metric_named(runs.a.header, "mpi"));
  const auto info = api.handle("info", {});
  EXPECT_EQ(info["unmatched"]["other_locations"], 1);
  EXPECT_EQ(info["unmatched"]["other_metrics"], 1);
  EXPECT_EQ(info["unmatched"]["metrics"], 1);  // bytes_sent
  EXPECT_EQ(info["unmatched"]["locations"], 0);

  // Metric totals: each run's over all of its processes (once both are read).
  const std::atomic<bool> cancel{false};
  api.preload(cancel);
  const auto totals = api.handle("metrics", {});
  EXPECT_EQ(totals["complete"], true);
  ASSERT_EQ(totals["values"].size(), metrics.size());
  ASSERT_EQ(totals["other"].size(), metrics.size());
  for (std::size_t m = 0; m < metrics.size(); ++m) {
    double mine = 0.0;
    double theirs = 0.0;
    if (const auto row = metric_named(runs.a.header, metrics[m]["name"])) for (const double v : runs.a.values[*row]) mine += v;
    if (const auto row = metric_named(runs.b.header, metrics[m]["name"])) for (const double v : runs.b.values[*row]) theirs += v;
    EXPECT_NEAR(totals["values"][m].get<double>(), mine, 1e-9 * (1.0 + mine)) << metrics[m]["name"];
    EXPECT_NEAR(totals["other"][m].get<double>(), theirs, 1e-9 * (1.0 + theirs)) << metrics[m]["name"];
  }
  EXPECT_GT(totals["other"].back().get<double>(), 0.0);
  EXPECT_EQ(totals["values"].back().get<double>(), 0.0);

  // Every metric selection x union call path x process: each run's values by
  // brute force, and the other run's per call path totals over all 3 processes.
  const auto paths = union_paths(header);
  ASSERT_GT(paths.size(), runs.a.header.callpaths.size());  // the other run has call paths of its own
  std::size_t compared = 0;
  for (std::size_t m = 0; m < metrics.size(); ++m) {
    const std::string name = metrics[m]["name"];
    for (const bool m_incl : {false, true}) {
      const Params metric_params{{"metric", std::to_string(m)}, {"metric_incl", m_incl ? "1" : "0"}};
      const auto calls = api.handle("callpaths", metric_params);
      for (std::size_t c = 0; c < paths.size(); ++c) {
        for (const bool c_incl : {false, true}) {
          const char* field = c_incl ? "inclusive" : "exclusive";
          const double mine = run_total(runs.a, name, m_incl, paths[c], c_incl);
          const double theirs = run_total(runs.b, name, m_incl, paths[c], c_incl);
          ASSERT_NEAR(calls[field][c].get<double>(), mine, 1e-9 * (1.0 + mine)) << name << " " << paths[c];
          ASSERT_NEAR(calls["other"][field][c].get<double>(), theirs, 1e-9 * (1.0 + theirs)) << name << " " << paths[c];
          auto params = metric_params;
          params["callpath"] = std::to_string(c);
          params["callpath_incl"] = c_incl ? "1" : "0";
          const auto per_process = api.handle("locations", params);
          ASSERT_EQ(per_process["values"].size(), 3U);
          ASSERT_EQ(per_process["other"].size(), 3U);
          for (std::size_t l = 0; l < 3; ++l) {
            const int32_t rank = header["locations"][l]["rank"];
            const double a_value = run_value(runs.a, name, m_incl, paths[c], c_incl, rank);
            const double b_value = run_value(runs.b, name, m_incl, paths[c], c_incl, rank);
            ASSERT_NEAR(per_process["values"][l].get<double>(), a_value, 1e-9 * (1.0 + a_value));
            ASSERT_NEAR(per_process["other"][l].get<double>(), b_value, 1e-9 * (1.0 + b_value));
            if (rank == 2 && b_value != 0.0) ++compared;
          }
        }
      }
    }
  }
  EXPECT_GT(compared, 100U);  // many selections where the other run's rank 2 adds to its totals
}

TEST(ViewerApi, ComparingHeatmapUsesTheUnionOfCallPathsAndProcesses) {
  const RunPair runs;
  ViewerApi api(data_of(runs.a), data_of(runs.b));
  const auto header = api.handle("header", {});
  const auto paths = union_paths(header);
  std::size_t other_only_rows = 0;
  for (const std::string name : {"execution", "wait_at_barrier", "bytes_sent", "time"}) {
    std::size_t m = 0;
    while (header["metrics"][m]["name"] != name) ++m;
    const auto heat = api.handle("heatmap", {{"metric", std::to_string(m)}, {"metric_incl", "1"}, {"top", "200"}});
    // Independently: each union call path's larger exclusive total of the two runs.
    std::vector<double> keys;
    for (const auto& path : paths) {
      keys.push_back(std::max(run_total(runs.a, name, true, path, false), run_total(runs.b, name, true, path, false)));
    }
    ASSERT_EQ(heat["callpaths"].size(),
              static_cast<std::size_t>(std::count_if(keys.begin(), keys.end(), [](double k) { return k != 0.0; })))
        << name;
    double previous = 1e300;
    for (std::size_t k = 0; k < heat["callpaths"].size(); ++k) {
      const std::size_t c = heat["callpaths"][k];
      EXPECT_LE(keys[c], previous) << name;
      previous = keys[c];
      if (c >= runs.a.header.callpaths.size()) ++other_only_rows;
      ASSERT_EQ(heat["values"][k].size(), 3U);
      ASSERT_EQ(heat["other"][k].size(), 3U);
      for (std::size_t l = 0; l < 3; ++l) {
        const int32_t rank = header["locations"][l]["rank"];
        const double a_value = run_value(runs.a, name, true, paths[c], false, rank);
        const double b_value = run_value(runs.b, name, true, paths[c], false, rank);
        EXPECT_NEAR(heat["values"][k][l].get<double>(), a_value, 1e-9 * (1.0 + a_value));
        EXPECT_NEAR(heat["other"][k][l].get<double>(), b_value, 1e-9 * (1.0 + b_value));
      }
    }
  }
  EXPECT_GT(other_only_rows, 0U);  // call paths only the other run has are among the hottest
}

TEST(ViewerApi, SingleReportAnswersHaveNoComparisonFields) {
  const auto a = make_fixture_cube({.callpaths = 20, .locations = 3, .seed = 4, .scale = 1.0});
  ViewerApi api(data_of(a));
  const auto header = api.handle("header", {});
  EXPECT_EQ(header["metrics"].size(), a.header.metrics.size());
  EXPECT_EQ(header["locations"].size(), 3U);
  EXPECT_FALSE(header["callpaths"].contains("other_only_from"));
  for (const auto& m : header["metrics"]) EXPECT_FALSE(m.contains("other_only"));
  for (const auto& l : header["locations"]) EXPECT_FALSE(l.contains("other_only"));
  EXPECT_TRUE(api.handle("info", {})["unmatched"].is_null());
  EXPECT_FALSE(api.handle("metrics", {}).contains("other"));
  EXPECT_FALSE(api.handle("heatmap", {{"metric", "0"}}).contains("other"));
  EXPECT_FALSE(api.handle("locations", {{"metric", "0"}, {"callpath", "0"}}).contains("other"));
  EXPECT_THROW((void)api.handle("callpaths", {{"metric", std::to_string(a.header.metrics.size())}}), UsageError);
}

TEST(ViewerApi, DiffAnswersGiveTheOtherReportInTheFirstReportsRows) {
  const auto a = make_fixture_cube({.callpaths = 30, .locations = 4, .seed = 2, .scale = 1.0});
  const auto b = make_fixture_cube({.callpaths = 30, .locations = 4, .seed = 2, .scale = 2.0});
  ViewerApi api(data_of(a), data_of(b));
  const auto calls = api.handle("callpaths", {{"metric", "3"}, {"metric_incl", "0"}});
  ASSERT_TRUE(calls.contains("other"));
  for (std::size_t c = 0; c < a.header.callpaths.size(); ++c) {
    const double mine = calls["inclusive"][c];
    const double theirs = calls["other"]["inclusive"][c];
    EXPECT_NEAR(theirs, 2.0 * mine, 1e-9 * (1.0 + theirs));  // late_sender scales with the run
  }
  const auto per_rank = api.handle("locations", {{"metric", "0"}, {"callpath", "0"}});
  EXPECT_EQ(per_rank["values"].size(), 4U);
  EXPECT_EQ(per_rank["other"].size(), 4U);
}

TEST(ViewerApi, BadParametersAreUsageErrors) {
  const auto a = make_fixture_cube({});
  ViewerApi api(data_of(a));
  EXPECT_THROW((void)api.handle("nothing", {}), UsageError);
  EXPECT_THROW((void)api.handle("callpaths", {}), UsageError);
  EXPECT_THROW((void)api.handle("callpaths", {{"metric", "99"}}), UsageError);
  EXPECT_THROW((void)api.handle("callpaths", {{"metric", "1x"}}), UsageError);
  EXPECT_THROW((void)api.handle("callpaths", {{"metric", "-1"}}), UsageError);
  EXPECT_THROW((void)api.handle("locations", {{"metric", "0"}, {"callpath", "999"}}), UsageError);
  EXPECT_THROW((void)api.handle("callpaths", {{"metric", "0"}, {"metric_incl", "yes"}}), UsageError);
}

TEST(ViewerApi, AllCallPathsSumsTheRoots) {
  auto cube = make_fixture_cube({.callpaths = 20, .locations = 3, .seed = 6, .scale = 1.0});
  // A second root, as in reports of programs without compiler hooks.
  cube.header.callpaths.push_back({-1, 1});
  for (auto& values : cube.values) values.insert(values.end(), {1.0, 2.0, 3.0});
  ViewerApi api(data_of(cube), data_of(cube));
  const auto all = api.handle("locations", {{"metric", "6"}, {"callpath", "all"}});
  const auto main = api.handle("locations", {{"metric", "6"}, {"callpath", "0"}});
  for (std::size_t l = 0; l < 3; ++l) {
    EXPECT_DOUBLE_EQ(all["values"][l].get<double>(),
                     main["values"][l].get<double>() + static_cast<double>(l + 1));
    EXPECT_DOUBLE_EQ(all["other"][l].get<double>(), all["values"][l].get<double>());
  }
  const auto nothing = api.handle("locations", {{"metric", "6"}, {"callpath", "all"}, {"callpath_incl", "0"}});
  for (const double v : nothing["values"]) EXPECT_EQ(v, 0.0);
}

TEST(ViewerApi, HeatmapRowsAreTheHottestCallPaths) {
  const auto a = make_fixture_cube({.callpaths = 60, .locations = 3, .seed = 9, .scale = 1.0});
  ViewerApi api(data_of(a));
  const auto heat = api.handle("heatmap", {{"metric", "1"}, {"metric_incl", "1"}, {"top", "5"}});
  const auto calls = api.handle("callpaths", {{"metric", "1"}, {"metric_incl", "1"}});
  ASSERT_EQ(heat["callpaths"].size(), 5U);
  double previous = 1e300;
  for (std::size_t k = 0; k < 5; ++k) {
    const std::size_t c = heat["callpaths"][k];
    const double total = calls["exclusive"][c];
    EXPECT_LE(total, previous);
    previous = total;
    double row_sum = 0.0;
    for (const double v : heat["values"][k]) row_sum += v;
    EXPECT_NEAR(row_sum, total, 1e-9 * (1.0 + total));
  }
}

TEST(ViewerApi, FindingsAreTheWaitStatesLargestFirstAtTheirHottestCallPath) {
  const auto cube = make_fixture_cube({.callpaths = 40, .locations = 5, .seed = 3, .scale = 1.0});
  ViewerApi api(data_of(cube));
  const auto answer = api.handle("findings", {});
  const auto& list = answer["findings"];
  ASSERT_FALSE(list.empty());
  const std::size_t n_locations = cube.header.locations.size();
  double previous = 1e300;
  for (const auto& f : list) {
    // The value is the metric's total (with sub-metrics) over the whole cube, by brute force.
    std::vector<std::size_t> rows;
    for (std::size_t m = 0; m < cube.header.metrics.size(); ++m) {
      for (int64_t p = static_cast<int64_t>(m); p >= 0; p = cube.header.metrics[static_cast<std::size_t>(p)].parent) {
        if (cube.header.metrics[static_cast<std::size_t>(p)].name == f["metric"]) {
          rows.push_back(m);
          break;
        }
      }
    }
    ASSERT_FALSE(rows.empty()) << f["metric"];
    std::vector<double> per_callpath(cube.header.callpaths.size(), 0.0);
    for (const std::size_t m : rows) {
      for (std::size_t i = 0; i < cube.values[m].size(); ++i) per_callpath[i / n_locations] += cube.values[m][i];
    }
    double total = 0;
    for (const double v : per_callpath) total += v;
    EXPECT_NEAR(f["value"].get<double>(), total, 1e-9 * total);
    EXPECT_LE(f["value"].get<double>(), previous);
    previous = f["value"].get<double>();
    // Its call path is the one with the most of it; its first process the most affected there.
    const auto hottest = static_cast<std::size_t>(std::max_element(per_callpath.begin(), per_callpath.end()) - per_callpath.begin());
    EXPECT_EQ(f["callpath"].get<std::size_t>(), hottest);
    std::vector<double> at(n_locations, 0.0);
    for (const std::size_t m : rows) {
      for (std::size_t l = 0; l < n_locations; ++l) at[l] += cube.values[m][hottest * n_locations + l];
    }
    const auto worst = static_cast<std::size_t>(std::max_element(at.begin(), at.end()) - at.begin());
    ASSERT_FALSE(f["locations"].empty());
    EXPECT_EQ(f["locations"][0].get<std::size_t>(), worst);
    EXPECT_FALSE(f["advice"].get<std::string>().empty());
  }
}

TEST(ViewerApi, HeatmapUnderACallPathKeepsItsSubtree) {
  const auto a = make_fixture_cube({.callpaths = 60, .locations = 3, .seed = 9, .scale = 1.0});
  ViewerApi api(data_of(a));
  // The first child of the root, and which rows lie below it.
  std::size_t under = 1;
  const auto& callpaths = a.header.callpaths;
  const auto in_subtree = [&](std::size_t c) {
    for (int64_t p = static_cast<int64_t>(c); p >= 0; p = callpaths[static_cast<std::size_t>(p)].parent) {
      if (static_cast<std::size_t>(p) == under) return true;
    }
    return false;
  };
  const auto heat = api.handle("heatmap", {{"metric", "1"}, {"top", "50"}, {"under", std::to_string(under)}});
  ASSERT_FALSE(heat["callpaths"].empty());
  for (const auto& c : heat["callpaths"]) EXPECT_TRUE(in_subtree(c.get<std::size_t>())) << c;
  const auto all = api.handle("heatmap", {{"metric", "1"}, {"top", "50"}, {"under", "all"}});
  EXPECT_GT(all["callpaths"].size(), heat["callpaths"].size());
  EXPECT_THROW((void)api.handle("heatmap", {{"metric", "1"}, {"under", "100000"}}), UsageError);
}

TEST(ViewerToken, RandomHexAndComparedExactly) {
  const std::string a = random_token();
  const std::string b = random_token();
  EXPECT_EQ(a.size(), 32U);
  EXPECT_EQ(a.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_NE(a, b);
  EXPECT_TRUE(tokens_equal(a, a));
  EXPECT_FALSE(tokens_equal(a, b));
  EXPECT_FALSE(tokens_equal(a, a.substr(1)));
  EXPECT_FALSE(tokens_equal(a, ""));
  EXPECT_FALSE(tokens_equal("", ""));
}

}  // namespace
}  // namespace orrery::viewer

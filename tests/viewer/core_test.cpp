// The viewer's cube sums, report matching and JSON API, on synthetic cubes
// checked against brute-force sums written independently here.

#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <thread>

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

// The efficiencies, what-if prediction and function groups of a report in the
// viewer's API: a fixture cube written to HDF5 with literal `/efficiency`,
// what-if attributes and `/groups`, read back by read_run_analyses (through
// orrery::report's readers) and answered by /api/facts and /api/function_groups;
// and the call paths the timeline outlines as on the critical path.

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "api.h"
#include "critical_overlay.h"
#include "fixture_cube.h"
#include "orrery/error.h"
#include "orrery/report/efficiency.h"
#include "orrery/report/groups.h"
#include "orrery/report/hdf5_io.h"
#include "run_analyses.h"

namespace orrery::viewer {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class AnalysesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("orrery-analyses-test-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    cube_ = testing::make_fixture_cube({.callpaths = 24, .locations = 4, .seed = 3, .scale = 1.0});
  }
  void TearDown() override { fs::remove_all(dir_); }

  /// Writes the fixture cube; `with_analyses` adds the literal efficiencies, prediction and groups.
  std::string write_report(const std::string& name, bool with_analyses) {
    const std::string path = (dir_ / name).string();
    report::CubeWriter writer(path, cube_.header);
    for (std::size_t m = 0; m < cube_.values.size(); ++m) writer.write_metric(m, cube_.values[m]);
    writer.close();
    if (!with_analyses) return path;
    report::write_efficiency_record(path,
                                    {{"parallel_efficiency", 0.6, "load balance times communication"},
                                     {"load_balance", 0.8, "mean useful computation over its maximum"},
                                     {"communication_efficiency", 0.75, "max useful computation over run time"}},
                                    report::Prediction{"latency=50us,bandwidth=100MB/s", 1.25});
    report::FunctionGroups groups;
    groups.locations = 4;
    groups.groups = {{"computation", -1, 0.9}, {"app.c", 0, 1.0}, {"MPI point-to-point", -1, 0.25},
                     {"MPI_Recv", 2, 1.0}};
    groups.time = {4, 2, 2, 2, 4, 2, 2, 2, 1, 3, 3, 3, 1, 3, 3, 3};
    report::write_function_groups(path, groups);
    return path;
  }

  /// The API over the report at `path`, with its analyses read as `orrery view` reads them.
  std::shared_ptr<ViewerApi> api_of(const std::string& path) {
    const auto& cube = cube_;
    auto data = std::make_shared<ReportData>(path, cube.header, [&cube](std::size_t m) { return cube.values[m]; });
    auto api = std::make_shared<ViewerApi>(data);
    api->set_analyses(0, read_run_analyses(path, cube.header.locations.size()));
    return api;
  }

  fs::path dir_;
  report::Cube cube_;
};

TEST_F(AnalysesTest, FactsCarryTheEfficienciesAndThePrediction) {
  const json facts = api_of(write_report("what_if.h5", true))->handle("facts", {});
  const json& run = facts.at("runs").at(0);
  ASSERT_TRUE(run.at("efficiency").is_array());
  ASSERT_EQ(run.at("efficiency").size(), 3U);
  EXPECT_EQ(run["efficiency"][0]["name"], "parallel_efficiency");
  EXPECT_DOUBLE_EQ(run["efficiency"][0]["value"].get<double>(), 0.6);
  EXPECT_EQ(run["efficiency"][1]["name"], "load_balance");
  EXPECT_DOUBLE_EQ(run["efficiency"][1]["value"].get<double>(), 0.8);
  EXPECT_EQ(run["efficiency"][1]["description"], "mean useful computation over its maximum");
  EXPECT_DOUBLE_EQ(run["efficiency"][2]["value"].get<double>(), 0.75);
  EXPECT_EQ(run.at("what_if"), "latency=50us,bandwidth=100MB/s");
  EXPECT_DOUBLE_EQ(run.at("predicted_runtime").get<double>(), 1.25);
  EXPECT_TRUE(run.at("efficiency_error").is_null());
}

TEST_F(AnalysesTest, AnOrdinaryReportHasNoneOfThem) {
  const auto api = api_of(write_report("plain.h5", false));
  const json run = api->handle("facts", {}).at("runs").at(0);
  EXPECT_TRUE(run.at("efficiency").is_null());
  EXPECT_TRUE(run.at("what_if").is_null());
  EXPECT_TRUE(run.at("predicted_runtime").is_null());
  const json groups = api->handle("function_groups", {{"group", "0"}});
  EXPECT_FALSE(groups.at("available").get<bool>());
  EXPECT_NE(groups.at("reason").get<std::string>().find("/groups"), std::string::npos);
}

TEST_F(AnalysesTest, FunctionGroupsHaveTotalsImbalanceAndSimilarity) {
  const auto api = api_of(write_report("groups.h5", true));
  const json answer = api->handle("function_groups", {});
  ASSERT_TRUE(answer.at("available").get<bool>());
  EXPECT_FALSE(answer.contains("values"));
  const json& groups = answer.at("groups");
  ASSERT_EQ(groups.size(), 4U);
  EXPECT_EQ(groups[0]["name"], "computation");
  EXPECT_EQ(groups[0]["parent"], -1);
  EXPECT_DOUBLE_EQ(groups[0]["similarity"].get<double>(), 0.9);
  EXPECT_DOUBLE_EQ(groups[0]["total"].get<double>(), 10.0);
  EXPECT_DOUBLE_EQ(groups[0]["mean"].get<double>(), 2.5);
  EXPECT_DOUBLE_EQ(groups[0]["max"].get<double>(), 4.0);
  EXPECT_EQ(groups[0]["max_location"], 0);
  EXPECT_DOUBLE_EQ(groups[0]["imbalance"].get<double>(), 0.375);  // (4 - 2.5) / 4
  EXPECT_EQ(groups[3]["name"], "MPI_Recv");
  EXPECT_EQ(groups[3]["parent"], 2);
  EXPECT_DOUBLE_EQ(groups[2]["similarity"].get<double>(), 0.25);
  EXPECT_EQ(groups[2]["max_location"], 1);
  EXPECT_DOUBLE_EQ(groups[2]["imbalance"].get<double>(), 0.5 / 3.0);  // (3 - 2.5) / 3

  const json selected = api->handle("function_groups", {{"group", "2"}});
  EXPECT_EQ(selected.at("selected"), 2);
  EXPECT_EQ(selected.at("values"), json({1.0, 3.0, 3.0, 3.0}));
  EXPECT_THROW((void)api->handle("function_groups", {{"group", "4"}}), UsageError);
  EXPECT_THROW((void)api->handle("function_groups", {{"run", "1"}}), UsageError);  // no other report
}

// Two ranks (rank 1 with an OpenMP thread): main > solve, main > MPI_Recv;
// critical_path with its sub-metric critical_path_imbalance.
TEST(CriticalOverlay, ChainsPerRankFromTheMetricAndItsSubMetrics) {
  report::CubeHeader h;
  h.metrics = {{"time", "Time", -1, "sec", "", ""},
               {"critical_path", "Critical path", -1, "sec", "", ""},
               {"critical_path_imbalance", "Imbalance", 1, "sec", "", ""}};
  h.regions = {{"main", "a.c", 1, "compiler"}, {"solve", "a.c", 5, "compiler"}, {"MPI_Recv", "", 0, "mpi"}};
  h.callpaths = {{-1, 0}, {0, 1}, {0, 2}};
  h.locations = {{0, 0, "n", "rank 0"}, {1, 0, "n", "rank 1"}, {1, 1, "n", "rank 1 thread 1"}};
  // [callpath][location]
  const std::vector<std::vector<double>> values = {
      {1, 1, 1, 2, 2, 2, 3, 3, 3},
      {0, 0.7, 0, 1.0, 0, 0, 0.2, 0, 0},  // critical_path: rank 0 solve 1.0, MPI_Recv 0.2; main (a root) is left out
      {0, 0, 0, 0, 0, 9.0, 0, 0.5, 0}};  // its part above the mean: rank 1 MPI_Recv; thread 1 is no rank's
  ReportData data("literal", h, [&values](std::size_t m) { return values[m]; });
  const auto chains = critical_path_chains(data, 8);
  ASSERT_EQ(chains.size(), 2U);
  using Chains = std::vector<std::vector<std::string>>;
  EXPECT_EQ(chains.at(0), (Chains{{"main", "solve"}, {"main", "MPI_Recv"}}));  // largest first
  EXPECT_EQ(chains.at(1), (Chains{{"main", "MPI_Recv"}}));
  EXPECT_EQ(critical_path_chains(data, 1).at(0), (Chains{{"main", "solve"}}));

  h.metrics.resize(1);
  ReportData without("literal", h, [&values](std::size_t m) { return values[m]; });
  EXPECT_TRUE(critical_path_chains(without, 8).empty());
}

}  // namespace
}  // namespace orrery::viewer

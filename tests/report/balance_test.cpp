// The comparing metrics (report/balance.h) and the function groups
// (report/groups.h) on literal rows and cubes with known values.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include "literal_cube.h"
#include "orrery/error.h"
#include "orrery/report/balance.h"
#include "orrery/report/groups.h"
#include "orrery/report/hdf5_io.h"

namespace orrery::report {
namespace {

namespace fs = std::filesystem;
using testing::literal_cube;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(ImbalanceHeuristic, AboveBelowAndBypass) {
  // Three visitors (2, 4, 6: mean 4) and one process that never came.
  const ImbalanceParts parts = imbalance_parts({2, 4, 6, 0}, {1, 1, 1, 0});
  EXPECT_EQ(parts.above, (std::vector<double>{0, 0, 2, 0}));
  EXPECT_EQ(parts.below, (std::vector<double>{2, 0, 0, 0}));
  EXPECT_EQ(parts.below_bypass, (std::vector<double>{0, 0, 0, 4}));
  EXPECT_EQ(parts.above_single, (std::vector<double>{0, 0, 0, 0}));
  EXPECT_EQ(parts.below_singularity, (std::vector<double>{0, 0, 0, 0}));
}

TEST(ImbalanceHeuristic, SingleParticipantAndSingularity) {
  // Only rank 2 ran it (8 s): 8 x 3/4 above an even share, 2 s for each other.
  const ImbalanceParts parts = imbalance_parts({0, 0, 8, 0}, {0, 0, 1, 0});
  EXPECT_EQ(parts.above_single, (std::vector<double>{0, 0, 6, 0}));
  EXPECT_EQ(parts.below_singularity, (std::vector<double>{2, 2, 0, 2}));
  EXPECT_EQ(parts.above, (std::vector<double>{0, 0, 0, 0}));
  EXPECT_EQ(parts.below_bypass, (std::vector<double>{0, 0, 0, 0}));
}

TEST(ImbalanceHeuristic, AbsentLocationsDoNotCount) {
  const ImbalanceParts parts = imbalance_parts({kNaN, 2, 4}, {kNaN, 1, 1});
  EXPECT_EQ(parts.above[2], 1.0);
  EXPECT_EQ(parts.below[1], 1.0);
  EXPECT_EQ(parts.above[0], 0.0);
  EXPECT_EQ(parts.below_bypass[0], 0.0);
}

TEST(CriticalPathSplit, PartAboveTheMeanAndImpact) {
  // CP 40 on rank 2; mean (10 + 10 + 40 + 10) / 4 = 17.5: 22.5 above it,
  // shared by the three that spent 30 less each.
  const CriticalPathSplit split =
      split_critical_path({0, 0, 40, 0}, {10, 10, 40, 10}, {true, true, true, true});
  EXPECT_EQ(split.imbalance, (std::vector<double>{0, 0, 22.5, 0}));
  EXPECT_EQ(split.critical_path, (std::vector<double>{0, 0, 17.5, 0}));
  EXPECT_EQ(split.impact, (std::vector<double>{7.5, 7.5, 0, 7.5}));
}

TEST(CriticalPathSplit, NothingAboveTheMean) {
  const CriticalPathSplit split = split_critical_path({5, 0}, {10, 10}, {true, true});
  EXPECT_EQ(split.critical_path, (std::vector<double>{5, 0}));
  EXPECT_EQ(split.imbalance, (std::vector<double>{0, 0}));
  EXPECT_EQ(split.impact, (std::vector<double>{0, 0}));
}

TEST(LoadSimilarity, CorrelationMappedToZeroOne) {
  const double a[4] = {1, 2, 3, 4}, scaled[4] = {12, 14, 16, 18}, opposite[4] = {4, 3, 2, 1};
  const double flat[4] = {5, 5, 5, 5}, other_flat[4] = {1, 1, 1, 1};
  const double x[4] = {2, 0, 2, 0}, y[4] = {2, 2, 0, 0};
  EXPECT_DOUBLE_EQ(load_similarity(a, scaled, 4), 1.0);
  EXPECT_DOUBLE_EQ(load_similarity(a, opposite, 4), 0.0);
  EXPECT_DOUBLE_EQ(load_similarity(x, y, 4), 0.5);  // uncorrelated
  EXPECT_DOUBLE_EQ(load_similarity(a, flat, 4), 0.5);
  EXPECT_DOUBLE_EQ(load_similarity(flat, other_flat, 4), 1.0);
}

/// Two ranks: computation in two files, one MPI receive, one collective,
/// one POSIX write, and a function too small to count.
Cube grouped_cube() {
  Cube cube = literal_cube(
      {.metrics = {{"time", ""}},
       .callpaths = {"main", "main/solve", "main/tiny", "main/MPI_Recv", "main/MPI_Allreduce",
                     "main/write"},
       .ranks = {0, 1},
       .values = {{"time", {{1, 1}, {3, 5}, {1e-6, 0}, {2, 0}, {1, 1}, {0.5, 0.5}}}}});
  for (Region& region : cube.header.regions) {
    if (region.name == "solve") region.file = "solver.c";
    // MPI regions name the pseudo file "MPI" (Orrery and Score-P): no source file.
    if (region.name.starts_with("MPI_")) region.file = "MPI";
  }
  return cube;
}

const FunctionGroup* find(const FunctionGroups& groups, const std::string& name, int32_t parent,
                          std::size_t* row = nullptr) {
  for (std::size_t g = 0; g < groups.groups.size(); ++g) {
    if (groups.groups[g].name == name && groups.groups[g].parent == parent) {
      if (row != nullptr) *row = g;
      return &groups.groups[g];
    }
  }
  return nullptr;
}

std::vector<double> time_of(const FunctionGroups& groups, std::size_t row) {
  return {groups.time.begin() + static_cast<std::ptrdiff_t>(row * groups.locations),
          groups.time.begin() + static_cast<std::ptrdiff_t>((row + 1) * groups.locations)};
}

TEST(FunctionGroups, TwoLevelsWithTotalsAndSimilarity) {
  const Cube cube = grouped_cube();
  const FunctionGroups groups = function_groups(cube.header, cube.values[0]);
  ASSERT_EQ(groups.locations, 2u);
  EXPECT_DOUBLE_EQ(groups.filtered, 1e-6);
  std::size_t computation = 0, solver = 0, app = 0, p2p = 0, collective = 0, io = 0;
  ASSERT_NE(find(groups, "Computation", -1, &computation), nullptr);
  ASSERT_NE(find(groups, "solver.c", static_cast<int32_t>(computation), &solver), nullptr);
  ASSERT_NE(find(groups, "app.c", static_cast<int32_t>(computation), &app), nullptr);
  ASSERT_NE(find(groups, "MPI point-to-point", -1, &p2p), nullptr);
  ASSERT_NE(find(groups, "MPI_Recv", static_cast<int32_t>(p2p)), nullptr);
  ASSERT_NE(find(groups, "MPI collective", -1, &collective), nullptr);
  ASSERT_NE(find(groups, "I/O", -1, &io), nullptr);
  EXPECT_EQ(find(groups, "Other", -1), nullptr);  // nothing in it
  EXPECT_EQ(time_of(groups, computation), (std::vector<double>{4, 6}));
  EXPECT_EQ(time_of(groups, solver), (std::vector<double>{3, 5}));
  EXPECT_EQ(time_of(groups, app), (std::vector<double>{1, 1}));
  EXPECT_EQ(time_of(groups, p2p), (std::vector<double>{2, 0}));
  EXPECT_EQ(time_of(groups, io), (std::vector<double>{0.5, 0.5}));
  EXPECT_LT(solver, app);  // the larger second-level group first
  // The run is flat (7.5 s each): a non-flat top group gets 0.5, a flat one 1.
  EXPECT_DOUBLE_EQ(groups.groups[computation].similarity, 0.5);
  EXPECT_DOUBLE_EQ(groups.groups[collective].similarity, 1.0);
  EXPECT_DOUBLE_EQ(groups.groups[solver].similarity, 1.0);  // same shape as Computation
  EXPECT_DOUBLE_EQ(groups.groups[app].similarity, 0.5);     // flat under a non-flat parent
}

TEST(FunctionGroups, BlocksOfLocationsGiveTheSameGroups) {
  // The analyzer's large-cube merge: the time one location at a time, twice.
  const Cube cube = grouped_cube();
  const std::size_t n = cube.header.locations.size();
  const FunctionGroups whole = function_groups(cube.header, cube.values[0]);
  FunctionGroupBuilder builder(cube.header, {});
  const auto column = [&](std::size_t l) {
    std::vector<double> values;
    for (std::size_t c = 0; c < cube.header.callpaths.size(); ++c) values.push_back(cube.values[0][c * n + l]);
    return values;
  };
  for (std::size_t l = 0; l < n; ++l) builder.add_totals(column(l).data(), l, 1);
  for (std::size_t l = 0; l < n; ++l) builder.add_values(column(l).data(), l, 1);
  const FunctionGroups blocks = builder.finish();
  ASSERT_EQ(blocks.groups.size(), whole.groups.size());
  for (std::size_t g = 0; g < whole.groups.size(); ++g) {
    EXPECT_EQ(blocks.groups[g].name, whole.groups[g].name);
    EXPECT_EQ(blocks.groups[g].parent, whole.groups[g].parent);
    EXPECT_EQ(blocks.groups[g].similarity, whole.groups[g].similarity);
  }
  EXPECT_EQ(blocks.time, whole.time);
  EXPECT_EQ(blocks.filtered, whole.filtered);
}

TEST(CriticalPathSplit, LocationByLocationIsTheSplit) {
  const std::vector<double> critical{0.5, 2.0, NAN, 0.0}, time{1.0, 3.0, NAN, 0.25};
  const std::vector<bool> ranks{true, true, true, false};
  const CriticalPathSplit split = split_critical_path(critical, time, ranks);
  CriticalPathTotals totals;
  for (std::size_t l = 0; l < 4; ++l) add_critical_location(totals, critical[l], time[l], ranks[l]);
  for (std::size_t l = 0; l < 4; ++l) add_impact_weight(totals, time[l], ranks[l]);
  EXPECT_EQ(totals.on_path, 2.5);
  EXPECT_EQ(totals.processes, 2u);
  for (std::size_t l = 0; l < 4; ++l) {
    const auto at = critical_path_at(totals, critical[l], time[l], ranks[l]);
    EXPECT_TRUE(at[0] == split.critical_path[l] || (std::isnan(at[0]) && std::isnan(split.critical_path[l])));
    EXPECT_EQ(at[1], split.imbalance[l]);
    EXPECT_EQ(at[2], split.impact[l]);
  }
  EXPECT_GT(split.imbalance[1], 0.0);  // 2.5 on the path against a mean of 2
  EXPECT_GT(split.impact[0], 0.0);
}

class GroupFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("orrery-groups-" + std::to_string(getpid()) + "-" + info->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream((dir_ / name).string()) << text;
    return (dir_ / name).string();
  }
  fs::path dir_;
};

TEST_F(GroupFiles, UserGroupingFile) {
  const std::string path = write("groups.txt",
                                 "# kernels by name\n"
                                 "\n"
                                 "Computation / kernels = sol*\n"
                                 "Reductions = MPI_*reduce\n");
  const auto rules = read_group_rules(path);
  ASSERT_EQ(rules.size(), 2u);
  EXPECT_EQ(rules[0].top, "Computation");
  EXPECT_EQ(rules[0].second, "kernels");
  EXPECT_EQ(rules[1].second, "");
  const Cube cube = grouped_cube();
  const FunctionGroups groups = function_groups(cube.header, cube.values[0], rules);
  std::size_t computation = 0, reductions = 0, kernels = 0;
  ASSERT_NE(find(groups, "Computation", -1, &computation), nullptr);
  ASSERT_NE(find(groups, "kernels", static_cast<int32_t>(computation), &kernels), nullptr);
  EXPECT_EQ(time_of(groups, kernels), (std::vector<double>{3, 5}));
  ASSERT_NE(find(groups, "Reductions", -1, &reductions), nullptr);
  EXPECT_NE(find(groups, "MPI_Allreduce", static_cast<int32_t>(reductions)), nullptr);
  EXPECT_EQ(find(groups, "MPI collective", -1), nullptr);
}

TEST_F(GroupFiles, BadGroupingFileNamesTheLine) {
  const std::string path = write("bad.txt", "Computation = a*\n# fine\nno pattern here\n");
  try {
    (void)read_group_rules(path);
    FAIL() << "no error";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("bad.txt:3:"), std::string::npos) << error.what();
  }
  EXPECT_THROW((void)read_group_rules((dir_ / "missing.txt").string()), InputError);
}

TEST_F(GroupFiles, ReportRoundTripAbsenceAndCorruption) {
  const Cube cube = grouped_cube();
  const std::string report = (dir_ / "report.h5").string();
  write_cube(report, cube);
  EXPECT_FALSE(read_function_groups(report, 2).has_value());  // absent: accepted
  const FunctionGroups groups = function_groups(cube.header, cube.values[0]);
  write_function_groups(report, groups);
  const auto back = read_function_groups(report, 2);
  ASSERT_TRUE(back.has_value());
  ASSERT_EQ(back->groups.size(), groups.groups.size());
  for (std::size_t g = 0; g < groups.groups.size(); ++g) {
    EXPECT_EQ(back->groups[g].name, groups.groups[g].name);
    EXPECT_EQ(back->groups[g].parent, groups.groups[g].parent);
    EXPECT_EQ(back->groups[g].similarity, groups.groups[g].similarity);
  }
  EXPECT_EQ(back->time, groups.time);
  EXPECT_EQ(read_cube(report).values, cube.values);  // the cube is untouched
  EXPECT_THROW((void)read_function_groups(report, 3), InputError);  // wrong shape

  const std::string corrupt = (dir_ / "corrupt.h5").string();
  write_cube(corrupt, cube);
  FunctionGroups bad = groups;
  bad.groups[0].parent = 5;  // a parent after its child
  write_function_groups(corrupt, bad);
  EXPECT_THROW((void)read_function_groups(corrupt, 2), InputError);
}

}  // namespace
}  // namespace orrery::report

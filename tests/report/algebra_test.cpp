// Cube algebra on cubes written literally: union of differing call trees,
// differing process counts, diff, merge, mean, cut, inclusive values.

#include <gtest/gtest.h>

#include "literal_cube.h"
#include "orrery/error.h"
#include "orrery/report/algebra.h"
#include "orrery/report/trees.h"

namespace orrery::report {
namespace {

using testing::chains;
using testing::literal_cube;
using testing::value_at;

// Run A: 2 ranks, main -> {solve -> MPI_Recv, MPI_Send}.
Cube run_a() {
  return literal_cube({.metrics = {{"time", ""}, {"mpi", "time"}, {"visits", ""}},
                       .callpaths = {"main", "main/solve", "main/solve/MPI_Recv", "main/MPI_Send"},
                       .ranks = {0, 1},
                       .values = {{"time", {{1, 2}, {4, 5}, {0, 0}, {0, 0}}},
                                  {"mpi", {{0, 0}, {0, 0}, {3, 1}, {0.5, 0.5}}},
                                  {"visits", {{1, 1}, {2, 2}, {8, 8}, {1, 1}}}}});
}

// Run B: 3 ranks, a different tree (no MPI_Send, a new io branch), another metric.
Cube run_b() {
  return literal_cube({.metrics = {{"time", ""}, {"mpi", "time"}, {"late_sender", "mpi"}},
                       .callpaths = {"main", "main/io", "main/solve", "main/solve/MPI_Recv"},
                       .ranks = {0, 1, 2},
                       .values = {{"time", {{1, 1, 1}, {7, 7, 7}, {2, 2, 2}, {0, 0, 0}}},
                                  {"mpi", {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {2, 2, 2}}},
                                  {"late_sender", {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {1, 0, 1}}}}});
}

TEST(Unite, CallTreesUniteByRegionNameChainInPreorder) {
  const Cube a = run_a();
  const Cube b = run_b();
  const CubeUnion united = unite({&a.header, &b.header});
  EXPECT_EQ(callpath_labels(united.header),
            (std::vector<std::string>{"main", "main/solve", "main/solve/MPI_Recv", "main/MPI_Send",
                                      "main/io"}));
  // Every parent comes before its children.
  for (std::size_t row = 0; row < united.header.callpaths.size(); ++row) {
    EXPECT_LT(united.header.callpaths[row].parent, static_cast<int32_t>(row));
  }
  EXPECT_EQ(united.inputs[1].callpaths, (std::vector<std::size_t>{0, 4, 1, 2}));
  // Metrics by name, the tree kept: late_sender under mpi, visits a root.
  std::vector<std::string> names;
  for (const auto& metric : united.header.metrics) {
    names.push_back(metric.name);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"time", "mpi", "late_sender", "visits"}));
  EXPECT_EQ(united.header.metrics[2].parent, 1);
  EXPECT_EQ(united.header.metrics[3].parent, -1);
  // Locations united by (rank, thread).
  ASSERT_EQ(united.header.locations.size(), 3u);
  EXPECT_EQ(united.inputs[0].locations, (std::vector<std::size_t>{0, 1}));
  EXPECT_FALSE(united.input_metric(0, 2).has_value());
  EXPECT_EQ(united.input_metric(1, 2), 2u);
}

TEST(Unite, RegionNamesContainingSlashesStayDistinct) {
  // "a/b" under main and "b" under main/a must not be confused.
  Cube cube = literal_cube({.metrics = {{"time", ""}}, .callpaths = {"main"}, .ranks = {0}});
  cube.header.regions.push_back({"a/b", "", 0, "compiler"});
  cube.header.regions.push_back({"a", "", 0, "compiler"});
  cube.header.regions.push_back({"b", "", 0, "compiler"});
  cube.header.callpaths = {{-1, 0}, {0, 1}, {0, 2}, {2, 3}};
  cube.values = {{1, 2, 3, 4}};
  const Cube twice = combine({&cube, &cube}, Combination::kSum);
  EXPECT_EQ(twice.header.callpaths.size(), 4u);
  EXPECT_EQ(twice.values[0], (MetricValues{2, 4, 6, 8}));
}

TEST(Algebra, DiffPadsMissingCallPathsMetricsAndRanksWithZero) {
  const Cube a = run_a();
  const Cube b = run_b();
  const Cube d = diff(a, b);
  EXPECT_EQ(value_at(d, "time", "main", 0), 1 - 1);
  EXPECT_EQ(value_at(d, "time", "main/solve", 1), 5 - 2);
  EXPECT_EQ(value_at(d, "time", "main/io", 0), 0 - 7);         // only in B
  EXPECT_EQ(value_at(d, "mpi", "main/MPI_Send", 1), 0.5 - 0);  // only in A
  EXPECT_EQ(value_at(d, "time", "main/solve", 2), 0 - 2);      // rank 2 only in B
  EXPECT_EQ(value_at(d, "mpi", "main/solve/MPI_Recv", 0), 3 - 2);
  EXPECT_EQ(value_at(d, "late_sender", "main/solve/MPI_Recv", 2), -1);  // metric only in B
  EXPECT_EQ(value_at(d, "visits", "main/solve/MPI_Recv", 1), 8);      // metric only in A
}

TEST(Algebra, DiffOfACubeWithItselfIsZero) {
  const Cube a = run_a();
  const Cube d = diff(a, a);
  for (const auto& values : d.values) {
    for (double v : values) {
      EXPECT_EQ(v, 0.0);
    }
  }
  EXPECT_EQ(chains(d), chains(a));
}

TEST(Algebra, MeanDividesByRunCountWithAbsentAsZero) {
  const Cube a = run_a();
  const Cube b = run_b();
  const Cube m = mean({&a, &b});
  EXPECT_DOUBLE_EQ(value_at(m, "time", "main/solve", 0), (4 + 2) / 2.0);
  EXPECT_DOUBLE_EQ(value_at(m, "time", "main/io", 1), 7 / 2.0);
  EXPECT_DOUBLE_EQ(value_at(m, "mpi", "main/MPI_Send", 0), 0.5 / 2.0);
  EXPECT_DOUBLE_EQ(value_at(m, "time", "main", 2), 1 / 2.0);
  const Cube three = mean({&a, &a, &a});
  EXPECT_EQ(three.values, a.values);
}

TEST(Algebra, MergeUnitesMetricsFirstInputWins) {
  const Cube a = run_a();
  const Cube b = run_b();
  const Cube m = merge({&a, &b});
  EXPECT_EQ(m.header.metrics.size(), 4u);
  EXPECT_EQ(value_at(m, "time", "main/solve", 0), 4);  // from A, not B's 2
  EXPECT_EQ(value_at(m, "time", "main/io", 0), 0);     // A has time, and no io: zero
  EXPECT_EQ(value_at(m, "late_sender", "main/solve/MPI_Recv", 2), 1);  // only B has it
  EXPECT_EQ(value_at(m, "visits", "main/solve/MPI_Recv", 1), 8);
}

TEST(Cut, RerootKeepsSubtreesOfMatches) {
  const Cube a = run_a();
  const Cube cut = apply_cut(plan_reroot(a.header, CallpathMatcher("solve")), a);
  EXPECT_EQ(chains(cut), (std::vector<std::string>{"solve", "solve/MPI_Recv"}));
  EXPECT_EQ(cut.header.callpaths[0].parent, -1);
  EXPECT_EQ(value_at(cut, "time", "solve", 1), 5);
  EXPECT_EQ(value_at(cut, "mpi", "solve/MPI_Recv", 0), 3);
  EXPECT_EQ(cut.header.regions.size(), 2u);  // only regions still used
}

TEST(Cut, RerootByRegexMatchesSeveralRoots) {
  const Cube a = run_a();
  const Cube cut = apply_cut(plan_reroot(a.header, CallpathMatcher("MPI_.*")), a);
  EXPECT_EQ(chains(cut), (std::vector<std::string>{"MPI_Recv", "MPI_Send"}));
}

TEST(Cut, PruneFoldsDescendantsIntoTheMatch) {
  const Cube a = run_a();
  const Cube cut = apply_cut(plan_prune(a.header, CallpathMatcher("main/solve")), a);
  EXPECT_EQ(chains(cut), (std::vector<std::string>{"main", "main/solve", "main/MPI_Send"}));
  EXPECT_EQ(value_at(cut, "time", "main/solve", 0), 4);
  EXPECT_EQ(value_at(cut, "mpi", "main/solve", 0), 3);  // MPI_Recv's value moved up
  EXPECT_EQ(value_at(cut, "visits", "main/solve", 1), 2 + 8);
  // Totals are unchanged by a prune.
  for (std::size_t m = 0; m < a.values.size(); ++m) {
    double before = 0, after = 0;
    for (double v : a.values[m]) before += v;
    for (double v : cut.values[m]) after += v;
    EXPECT_DOUBLE_EQ(before, after);
  }
}

TEST(Cut, NothingMatchedIsAnInputError) {
  const Cube a = run_a();
  EXPECT_THROW((void)plan_reroot(a.header, CallpathMatcher("nowhere")), InputError);
  EXPECT_THROW((void)plan_prune(a.header, CallpathMatcher("nowhere")), InputError);
  // An invalid regex is matched literally rather than failing.
  EXPECT_THROW((void)plan_prune(a.header, CallpathMatcher("operator(")), InputError);
}

TEST(Trees, InclusiveValuesSumSubtreesPerLocation) {
  const Cube a = run_a();
  MetricValues mpi = a.values[1];
  make_callpath_inclusive(a.header, mpi);
  EXPECT_EQ(mpi, (MetricValues{3.5, 1.5, 3, 1, 3, 1, 0.5, 0.5}));
  EXPECT_EQ(sum_over_locations(a.header, mpi), (std::vector<double>{5, 4, 4, 1}));
  EXPECT_EQ(metric_subtree(a.header, 0), (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(metric_subtree(a.header, 2), (std::vector<std::size_t>{2}));
  EXPECT_EQ(callpath_depths(a.header), (std::vector<int>{0, 1, 2, 1}));
}

}  // namespace
}  // namespace orrery::report

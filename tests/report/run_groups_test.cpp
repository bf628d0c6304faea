// Statistics for groups of repeated runs (report/statistics.h, run_groups.h):
// the t distribution against table values, Welch's test and the confidence
// intervals against their promised error rates on values drawn from known
// distributions, and group comparisons of synthetic cubes written to HDF5.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <memory>
#include <random>

#include "literal_cube.h"
#include "orrery/error.h"
#include "orrery/report/hdf5_io.h"
#include "orrery/report/run_groups.h"
#include "orrery/report/statistics.h"

namespace orrery::report {
namespace {

namespace fs = std::filesystem;
using testing::literal_cube;
using testing::LiteralCube;

/// A binomial rate's tolerance: four standard errors of `trials` draws at `rate`.
double four_sigma(double rate, int trials) {
  return 4.0 * std::sqrt(rate * (1.0 - rate) / trials);
}

std::vector<double> draw(std::mt19937_64& random, std::size_t n, double mean, double stddev) {
  std::normal_distribution<double> normal(mean, stddev);
  std::vector<double> values(n);
  for (double& value : values) value = normal(random);
  return values;
}

TEST(Statistics, IncompleteBetaKnownCases) {
  for (const double x : {0.0, 0.1, 0.5, 0.9, 1.0}) {
    EXPECT_NEAR(stats::incomplete_beta(1, 1, x), x, 1e-12);               // uniform
    EXPECT_NEAR(stats::incomplete_beta(3, 1, x), x * x * x, 1e-12);       // I_x(a,1) = x^a
    EXPECT_NEAR(stats::incomplete_beta(1, 2, x), 1 - (1 - x) * (1 - x), 1e-12);
  }
  EXPECT_NEAR(stats::incomplete_beta(7.5, 7.5, 0.5), 0.5, 1e-12);  // symmetric
}

TEST(Statistics, StudentTMatchesTables) {
  // Two-sided 95 %, 90 % and 99 % critical values from the standard t table.
  EXPECT_NEAR(stats::student_t_quantile(0.975, 1), 12.706, 1e-3);
  EXPECT_NEAR(stats::student_t_quantile(0.975, 2), 4.303, 1e-3);
  EXPECT_NEAR(stats::student_t_quantile(0.975, 4), 2.776, 1e-3);
  EXPECT_NEAR(stats::student_t_quantile(0.975, 10), 2.228, 1e-3);
  EXPECT_NEAR(stats::student_t_quantile(0.95, 2), 2.920, 1e-3);
  EXPECT_NEAR(stats::student_t_quantile(0.995, 30), 2.750, 1e-3);
  EXPECT_NEAR(stats::student_t_quantile(0.975, 1e7), 1.960, 1e-3);  // the normal limit
  EXPECT_NEAR(stats::student_t_cdf(0, 3), 0.5, 1e-12);
  EXPECT_NEAR(stats::student_t_cdf(2.776, 4), 0.975, 1e-4);
  EXPECT_NEAR(stats::student_t_cdf(-2.776, 4), 0.025, 1e-4);
  EXPECT_NEAR(stats::student_t_cdf(1.0, 1), 0.75, 1e-12);  // Cauchy: 1/2 + atan(1)/pi
}

TEST(Statistics, WelchTestWorkedExample) {
  // {1,2,3} vs {4,5,6}: means 2 and 5, s = 1 each, t = 3 / sqrt(2/3) = 3.674, df = 4.
  const auto result = stats::welch_test(stats::summarize({1, 2, 3}), stats::summarize({4, 5, 6}));
  EXPECT_NEAR(result.t, 3.6742, 1e-4);
  EXPECT_NEAR(result.df, 4.0, 1e-12);
  EXPECT_NEAR(result.p_value, 0.02131, 2e-5);
  // Unequal spreads: df falls between the smaller group's n - 1 and n_a + n_b - 2.
  const auto unequal =
      stats::welch_test(stats::summarize({10, 10.1, 9.9, 10.05}), stats::summarize({11, 14, 8, 12}));
  EXPECT_GT(unequal.df, 3.0 - 1e-9);
  EXPECT_LT(unequal.df, 6.0);
  // No spread at all: certain.
  EXPECT_EQ(stats::welch_test(stats::summarize({2, 2}), stats::summarize({2, 2})).p_value, 1.0);
  EXPECT_EQ(stats::welch_test(stats::summarize({2, 2}), stats::summarize({3, 3})).p_value, 0.0);
}

TEST(Statistics, ConfidenceIntervalsCoverTheMeanAtTheirLevel) {
  std::mt19937_64 random(17);
  constexpr int kTrials = 4000;
  for (const std::size_t n : {3U, 6U}) {
    int covered = 0;
    for (int trial = 0; trial < kTrials; ++trial) {
      const auto sample = stats::summarize(draw(random, n, 10.0, 2.0));
      const double half = stats::confidence_half_width(sample, 0.05);
      covered += std::fabs(sample.mean - 10.0) <= half ? 1 : 0;
    }
    const double rate = static_cast<double>(covered) / kTrials;
    EXPECT_NEAR(rate, 0.95, four_sigma(0.95, kTrials)) << "n = " << n;
  }
}

TEST(Statistics, EqualMeansAreSignificantAtRateAlpha) {
  // Welch's test is an approximation; with equal spreads its false-positive
  // rate stays within a few tenths of a percent of alpha from n = 3 on (and
  // slightly below it), so the tolerance is the sampling error plus 1 %.
  std::mt19937_64 random(5);
  constexpr int kTrials = 6000;
  for (const double alpha : {0.05, 0.10}) {
    for (const std::size_t n : {3U, 5U}) {
      int significant = 0;
      for (int trial = 0; trial < kTrials; ++trial) {
        const auto a = stats::summarize(draw(random, n, 1.0, 0.1));
        const auto b = stats::summarize(draw(random, n, 1.0, 0.1));
        significant += stats::welch_test(a, b).p_value < alpha ? 1 : 0;
      }
      const double rate = static_cast<double>(significant) / kTrials;
      EXPECT_NEAR(rate, alpha, four_sigma(alpha, kTrials) + 0.01)
          << "alpha " << alpha << ", n = " << n;
    }
  }
}

TEST(Statistics, RunsNeededDeliversThePower) {
  // Effect size 1 (change = cv) at alpha 0.05 and power 0.8 needs 17 per group
  // (the usual power tables for the two-sample t-test).
  EXPECT_EQ(stats::runs_needed(0.1, 0.1, 0.05, 0.8), std::optional<std::size_t>(17));
  EXPECT_EQ(stats::runs_needed(0.0, 0.1, 0.05, 0.8), std::optional<std::size_t>(2));
  EXPECT_FALSE(stats::runs_needed(1.0, 0.0001, 0.05, 0.8).has_value());
  EXPECT_GT(*stats::runs_needed(0.3, 0.02, 0.05, 0.8), *stats::runs_needed(0.3, 0.05, 0.05, 0.8));
  // With that many runs, the change is detected in about 80 % of trials.
  const double cv = 0.15;
  const double change = 0.12;
  const std::size_t n = *stats::runs_needed(cv, change, 0.05, 0.8);
  std::mt19937_64 random(11);
  constexpr int kTrials = 3000;
  int detected = 0;
  for (int trial = 0; trial < kTrials; ++trial) {
    const auto a = stats::summarize(draw(random, n, 1.0, cv));
    const auto b = stats::summarize(draw(random, n, 1.0 + change, cv));
    detected += stats::welch_test(a, b).p_value < 0.05 ? 1 : 0;
  }
  // At least the promised power (n is rounded up), at most what one more run gives.
  const double rate = static_cast<double>(detected) / kTrials;
  EXPECT_GT(rate, 0.8 - four_sigma(0.8, kTrials));
  EXPECT_LT(rate, 0.8 + 0.05 + four_sigma(0.8, kTrials));
}

/// Synthetic runs written as report.h5 files: one "time" value per call path
/// and rank drawn from a normal distribution.
class SyntheticRuns : public ::testing::Test {
 protected:
  static constexpr std::size_t kCallpaths = 1000;

  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("orrery-groups-" + std::to_string(getpid()) + "-" + info->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  /// Writes a run whose call path c has values mean(c) * factor with relative noise `cv`.
  std::string write_run(const std::string& name, double factor, double cv,
                        const std::vector<std::pair<std::string, std::string>>& metrics = {
                            {"time", ""}, {"mpi", "time"}}) {
    LiteralCube literal{.metrics = metrics, .callpaths = {}, .ranks = {0, 1}};
    std::vector<std::vector<double>> values;
    std::normal_distribution<double> noise(0.0, cv);
    for (std::size_t c = 0; c < kCallpaths; ++c) {
      literal.callpaths.push_back(c == 0 ? "main" : "main/f" + std::to_string(c));
      // Differs per call path; the root holds the most.
      const double mean = c == 0 ? 10.0 : 0.1 + 0.001 * static_cast<double>(c);
      values.push_back({mean * factor * (1 + noise(random_)), mean * factor * (1 + noise(random_))});
    }
    literal.values["time"] = values;
    const std::string path = (dir_ / (name + ".h5")).string();
    write_cube(path, literal_cube(literal));
    readers_.push_back(std::make_unique<CubeReader>(path));
    return path;
  }

  std::vector<GroupRun> group(const std::vector<std::string>& names, double factor, double cv) {
    std::vector<GroupRun> runs;
    for (const auto& name : names) {
      const std::string path = write_run(name, factor, cv);
      runs.push_back({path, readers_.back().get()});
    }
    return runs;
  }

  fs::path dir_;
  std::mt19937_64 random_{23};
  std::vector<std::unique_ptr<CubeReader>> readers_;
};

TEST_F(SyntheticRuns, EqualMeansGiveFalsePositivesNearAlpha) {
  const auto baseline = group({"a1", "a2", "a3"}, 1.0, 0.05);
  const auto candidate = group({"b1", "b2", "b3"}, 1.0, 0.05);
  GroupSelection selection;
  selection.metrics = {"time"};
  GroupTest test;
  test.min_change = 0;  // the p-value alone
  const GroupComparison comparison = compare_groups(baseline, candidate, selection, test);
  ASSERT_EQ(comparison.rows.size(), kCallpaths);
  int significant = 0;
  for (const auto& row : comparison.rows) significant += row.significant ? 1 : 0;
  const double rate = static_cast<double>(significant) / kCallpaths;
  EXPECT_NEAR(rate, 0.05, four_sigma(0.05, kCallpaths) + 0.01);
  // A minimum change keeps only findings at least that large.
  test.min_change = 0.05;
  int big = 0;
  for (const auto& row : compare_groups(baseline, candidate, selection, test).rows) {
    big += row.significant ? 1 : 0;
    if (row.significant) {
      EXPECT_GE(std::fabs(*row.change), 0.05) << row.label;
    }
  }
  EXPECT_LE(big, significant);
}

TEST_F(SyntheticRuns, ShiftOfTwentyPercentIsSignificantEverywhere) {
  const auto baseline = group({"a1", "a2", "a3"}, 1.0, 0.01);
  const auto candidate = group({"b1", "b2", "b3"}, 1.2, 0.01);
  GroupSelection selection;
  selection.metrics = {"time"};
  const GroupComparison comparison = compare_groups(baseline, candidate, selection, GroupTest{});
  ASSERT_EQ(comparison.rows.size(), kCallpaths);
  double relative_half_width = 0;
  for (const auto& row : comparison.rows) {
    ASSERT_TRUE(row.significant) << row.label << " p " << row.p_value;
    ASSERT_TRUE(row.change.has_value());
    EXPECT_NEAR(*row.change, 0.2, 0.03) << row.label;
    EXPECT_LE(row.baseline.ci_low, row.baseline.sample.mean);
    EXPECT_GE(row.baseline.ci_high, row.baseline.sample.mean);
    relative_half_width +=
        (row.candidate.ci_high - row.candidate.ci_low) / 2 / row.candidate.sample.mean;
  }
  // Two ranks with 1 % noise each: a call path's relative sigma is 1 % / sqrt(2); the
  // interval's half width is t(0.975, 2) * s / sqrt(3), and E[s] = 0.886 sigma at n = 3.
  const double expected = 4.303 * 0.886 * (0.01 / std::sqrt(2.0)) / std::sqrt(3.0);
  EXPECT_NEAR(relative_half_width / kCallpaths, expected, 0.1 * expected);
  // Sorted by size: the root, with by far the largest value, changed most.
  EXPECT_EQ(comparison.rows.front().label, "main");
}

TEST_F(SyntheticRuns, NoiseReportMeasuresTheCoefficientOfVariation) {
  const auto runs = group({"a1", "a2", "a3", "a4", "a5", "a6"}, 1.0, 0.10);
  GroupSelection selection;
  selection.metrics = {"time"};
  const NoiseReport report = noise_report(runs, selection, NoiseTarget{});
  ASSERT_EQ(report.rows.size(), kCallpaths);
  // Each call path sums two ranks with 10 % noise each: cv 10 % / sqrt(2).
  double cv_sum = 0;
  std::size_t counted = 0;
  for (const auto& row : report.rows) {
    ASSERT_TRUE(row.cv && row.runs_needed);
    cv_sum += *row.cv;
    ++counted;
    EXPECT_EQ(row.runs_needed, stats::runs_needed(*row.cv, 0.10, 0.05, 0.8));
  }
  // The sample standard deviation underestimates slightly (c4 = 0.95 at n = 6).
  EXPECT_NEAR(cv_sum / static_cast<double>(counted), 0.95 * 0.10 / std::sqrt(2.0), 0.004);
  // Largest values first.
  EXPECT_EQ(report.rows.front().label, "main");
}

TEST_F(SyntheticRuns, BadGroupsAreRefused) {
  const auto one = group({"a1"}, 1.0, 0.01);
  const auto two = group({"b1", "b2"}, 1.0, 0.01);
  EXPECT_THROW((void)compare_groups(one, two, GroupSelection{}, GroupTest{}), UsageError);
  EXPECT_THROW((void)noise_report(one, GroupSelection{}, NoiseTarget{}), UsageError);
  // A run without a metric the others have would count as zeros: refused, named.
  const std::string lacking = write_run("c1", 1.0, 0.01, {{"time", ""}});
  std::vector<GroupRun> mixed = {two[0], {lacking, readers_.back().get()}};
  try {
    (void)compare_groups(two, mixed, GroupSelection{}, GroupTest{});
    FAIL() << "mixed metrics accepted";
  } catch (const InputError& error) {
    EXPECT_NE(std::string(error.what()).find("no metric 'mpi'"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find(lacking), std::string::npos) << error.what();
  }
  GroupSelection only_time;
  only_time.metrics = {"time"};
  only_time.view.exclusive_metric = true;  // "time" alone: every run has it
  EXPECT_NO_THROW((void)compare_groups(two, mixed, only_time, GroupTest{}));
  only_time.metrics = {"nope"};
  EXPECT_THROW((void)compare_groups(two, mixed, only_time, GroupTest{}), InputError);
}

}  // namespace
}  // namespace orrery::report

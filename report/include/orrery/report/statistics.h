#pragma once
// Statistics for groups of repeated runs: sample summaries, the Student-t
// distribution (through the regularized incomplete beta function, so no
// library is needed), Welch's unequal-variance t-test, confidence intervals
// of the mean, and how many repeats a change needs to be detected.
//
// Why Welch's t-test and not a permutation test: with three runs per group an
// exact permutation test has only 20 distinct splits, so its smallest
// two-sided p-value is 0.1 and it can never reach p < 0.05; it needs four and
// four runs (70 splits, p >= 0.029) to say anything at the usual level. Run
// times of repeated runs are close enough to normal for the t-test, which
// works from two runs per group and does not assume equal spreads.

#include <cstddef>
#include <optional>
#include <vector>

namespace orrery::report::stats {

/// Mean, sample standard deviation (n - 1) and size of one group of values.
struct Sample {
  std::size_t n = 0;
  double mean = 0;
  double stddev = 0;  ///< 0 for fewer than two values
};

/// The summary of `values`.
[[nodiscard]] Sample summarize(const std::vector<double>& values);

/// I_x(a, b), the regularized incomplete beta function, for 0 <= x <= 1 and a, b > 0.
[[nodiscard]] double incomplete_beta(double a, double b, double x);

/// P(T <= t) for Student's t distribution with `df` (> 0, not necessarily whole) degrees of freedom.
[[nodiscard]] double student_t_cdf(double t, double df);

/// P(|T| >= t) for t >= 0: the two-sided tail, computed directly (accurate for tiny values).
[[nodiscard]] double student_t_two_sided_tail(double t, double df);

/// The t with P(T <= t) = probability, for 0.5 <= probability < 1.
[[nodiscard]] double student_t_quantile(double probability, double df);

/// The outcome of Welch's two-sample t-test of `b` against `a`.
struct WelchResult {
  double t = 0;         ///< (mean b - mean a) / standard error; 0 when both spreads are 0
  double df = 0;        ///< Welch-Satterthwaite degrees of freedom; 0 when both spreads are 0
  double p_value = 1;   ///< two-sided
};

/// Welch's t-test; both groups need n >= 2. When neither group varies, the
/// p-value is 1 for equal means and 0 for different ones (no noise at all).
[[nodiscard]] WelchResult welch_test(const Sample& a, const Sample& b);

/// Half the width of the (1 - alpha) confidence interval of the mean (t-interval);
/// 0 for n < 2 or no spread.
[[nodiscard]] double confidence_half_width(const Sample& sample, double alpha);

/// Runs per group for a two-sided two-sample t-test at `alpha` to detect a
/// relative change `change` (e.g. 0.05) of a mean with coefficient of
/// variation `cv` with probability `power`; at least 2. nullopt if more than
/// a million would be needed or the inputs make no sense (change <= 0).
[[nodiscard]] std::optional<std::size_t> runs_needed(double cv, double change, double alpha,
                                                     double power);

}  // namespace orrery::report::stats

#include "orrery/report/statistics.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace orrery::report::stats {
namespace {

/// The continued fraction of I_x(a, b) (evaluated with the modified Lentz
/// method), valid and fast for x < (a + 1) / (a + b + 2).
double beta_continued_fraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300;
  constexpr double kEpsilon = 1e-15;
  constexpr int kMaxTerms = 10000;
  // 1 + d1 / (1 + d2 / (1 + ...)), with d_{2m+1} = -(a+m)(a+b+m)x / ((a+2m)(a+2m+1))
  // and d_{2m} = m(b-m)x / ((a+2m-1)(a+2m)).
  double f = 1.0;
  double c = 1.0;
  double d = 0.0;
  for (int j = 1; j <= kMaxTerms; ++j) {
    const double m = std::floor(j / 2.0);
    const double numerator = (j % 2 == 1)
                                 ? -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
                                 : m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
    d = 1.0 + numerator * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1.0 + numerator / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    const double delta = c * d;
    f *= delta;
    if (std::fabs(delta - 1.0) < kEpsilon) break;
  }
  return f;
}

}  // namespace

Sample summarize(const std::vector<double>& values) {
  Sample sample;
  sample.n = values.size();
  if (values.empty()) return sample;
  double sum = 0;
  for (const double value : values) sum += value;
  sample.mean = sum / static_cast<double>(values.size());
  if (values.size() < 2) return sample;
  double squares = 0;
  for (const double value : values) squares += (value - sample.mean) * (value - sample.mean);
  sample.stddev = std::sqrt(squares / static_cast<double>(values.size() - 1));
  return sample;
}

double incomplete_beta(double a, double b, double x) {
  if (x <= 0) return 0.0;
  if (x >= 1) return 1.0;
  const double log_front = std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) +
                           b * std::log1p(-x);
  // The fraction converges quickly only below (a+1)/(a+b+2); above, use
  // I_x(a, b) = 1 - I_{1-x}(b, a).
  if (x < (a + 1) / (a + b + 2)) {
    return std::exp(log_front) / (a * beta_continued_fraction(a, b, x));
  }
  return 1.0 - std::exp(log_front) / (b * beta_continued_fraction(b, a, 1.0 - x));
}

double student_t_two_sided_tail(double t, double df) {
  if (std::isinf(t)) return 0.0;
  return incomplete_beta(df / 2.0, 0.5, df / (df + t * t));
}

double student_t_cdf(double t, double df) {
  const double tail = student_t_two_sided_tail(std::fabs(t), df) / 2.0;
  return t >= 0 ? 1.0 - tail : tail;
}

double student_t_quantile(double probability, double df) {
  if (probability <= 0.5) return 0.0;
  const double tail = 2.0 * (1.0 - probability);  // two-sided tail beyond the quantile
  double low = 0.0;
  double high = 1.0;
  while (student_t_two_sided_tail(high, df) > tail && high < 1e12) high *= 2.0;
  for (int i = 0; i < 200 && high - low > 1e-12 * high; ++i) {
    const double middle = (low + high) / 2.0;
    (student_t_two_sided_tail(middle, df) > tail ? low : high) = middle;
  }
  return (low + high) / 2.0;
}

WelchResult welch_test(const Sample& a, const Sample& b) {
  WelchResult result;
  const double va = a.stddev * a.stddev / static_cast<double>(a.n);
  const double vb = b.stddev * b.stddev / static_cast<double>(b.n);
  const double variance = va + vb;
  if (variance <= 0) {
    result.p_value = a.mean == b.mean ? 1.0 : 0.0;
    return result;
  }
  result.t = (b.mean - a.mean) / std::sqrt(variance);
  result.df = variance * variance / (va * va / static_cast<double>(a.n - 1) +
                                     vb * vb / static_cast<double>(b.n - 1));
  result.p_value = student_t_two_sided_tail(std::fabs(result.t), result.df);
  return result;
}

double confidence_half_width(const Sample& sample, double alpha) {
  if (sample.n < 2 || sample.stddev == 0) return 0.0;
  const double df = static_cast<double>(sample.n - 1);
  return student_t_quantile(1.0 - alpha / 2.0, df) * sample.stddev /
         std::sqrt(static_cast<double>(sample.n));
}

std::optional<std::size_t> runs_needed(double cv, double change, double alpha, double power) {
  if (!(change > 0) || !(cv >= 0) || !std::isfinite(cv)) return std::nullopt;
  constexpr double kLimit = 1e6;
  // n = 2 ((t_{1-alpha/2} + t_{power}) cv / change)^2 with 2n - 2 degrees of
  // freedom; start from a large df (the normal case) and iterate to a fixed point.
  const double ratio = cv / change;
  double n = 2.0;
  double df = 1e7;
  for (int i = 0; i < 50; ++i) {
    const double sum = student_t_quantile(1.0 - alpha / 2.0, df) + student_t_quantile(power, df);
    const double next = std::max(2.0, std::ceil(2.0 * sum * sum * ratio * ratio));
    if (next > kLimit) return std::nullopt;
    if (next == n && i > 0) break;
    n = next;
    df = 2.0 * n - 2.0;
  }
  return static_cast<std::size_t>(n);
}

}  // namespace orrery::report::stats

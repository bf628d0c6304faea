// The scaling model family and its selection (scaling_model.h).

#include "orrery/report/scaling_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <utility>

namespace orrery::report {
namespace {

/// The exponents i as fractions (numerator, denominator), positive ones; their negatives too.
constexpr std::pair<int, int> kExponents[] = {{0, 1}, {1, 4}, {1, 3}, {1, 2}, {2, 3}, {3, 4},
                                              {1, 1}, {5, 4}, {4, 3}, {3, 2}, {2, 1}, {3, 1}};

struct Term {
  double exponent = 0;
  int log_power = 0;
  bool constant = false;
  [[nodiscard]] double at(double p) const {
    if (constant) return 0;
    return std::pow(p, exponent) * std::pow(std::log2(p), log_power);
  }
};

std::vector<Term> candidates() {
  std::vector<Term> terms{{0, 0, true}};
  for (const auto& [numerator, denominator] : kExponents) {
    for (const int sign : {1, -1}) {
      if (numerator == 0 && sign < 0) continue;
      for (int j = 0; j <= 2; ++j) {
        if (numerator == 0 && j == 0) continue;  // the constant, above
        terms.push_back({sign * static_cast<double>(numerator) / denominator, j, false});
      }
    }
  }
  return terms;
}

/// Least squares of y ≈ c0 + c1·t over the points not equal to `skip`.
std::pair<double, double> least_squares(const std::vector<double>& t, const std::vector<double>& y,
                                        std::size_t skip, bool constant) {
  double n = 0, st = 0, sy = 0, stt = 0, sty = 0;
  for (std::size_t k = 0; k < t.size(); ++k) {
    if (k == skip) continue;
    n += 1;
    st += t[k];
    sy += y[k];
    stt += t[k] * t[k];
    sty += t[k] * y[k];
  }
  const double determinant = n * stt - st * st;
  if (constant || std::abs(determinant) <= 1e-12 * std::max(1.0, n * stt)) return {sy / n, 0.0};
  const double c1 = (n * sty - st * sy) / determinant;
  return {(sy - c1 * st) / n, c1};
}

/// "1/2", "2", "-3/4" for an exponent from kExponents.
std::string fraction(double value) {
  for (const auto& [numerator, denominator] : kExponents) {
    for (const int sign : {1, -1}) {
      if (std::abs(value - sign * static_cast<double>(numerator) / denominator) < 1e-9) {
        const std::string text = std::to_string(sign * numerator);
        return denominator == 1 ? text : text + "/" + std::to_string(denominator);
      }
    }
  }
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", value);
  return buffer;
}

std::string number(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", value);
  return buffer;
}

}  // namespace

double ScalingModel::operator()(double p) const {
  if (constant) return c0;
  return c0 + c1 * std::pow(p, exponent) * std::pow(std::log2(p), log_power);
}

std::string ScalingModel::text(const std::string& x) const {
  std::string out = number(c0);
  if (constant) return out;
  out += (c1 < 0 ? " - " : " + ") + number(std::abs(c1));
  if (exponent != 0) {
    out += " * " + x + (exponent == 1 ? std::string() : "^(" + fraction(exponent) + ")");
  }
  if (log_power > 0) {
    out += " * log2(" + x + ")" + (log_power == 1 ? std::string() : "^" + std::to_string(log_power));
  }
  return out;
}

std::pair<double, int> ScalingModel::growth() const {
  if (constant || c1 <= 0 || exponent < 0 || (exponent == 0 && log_power == 0)) return {0, 0};
  return {exponent, log_power};
}

ScalingModel fit_scaling_model(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size()) throw std::invalid_argument("x and y differ in length");
  std::vector<double> distinct = x;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  if (distinct.size() < 3) throw std::invalid_argument("needs at least 3 distinct sizes");
  if (distinct.front() <= 0) throw std::invalid_argument("sizes must be positive");
  const std::size_t n = x.size();
  double mean = 0;
  for (const double value : y) mean += value / static_cast<double>(n);
  double total = 0;
  for (const double value : y) total += (value - mean) * (value - mean);
  // Relative errors, against the scale of the data (a zero point does not divide by zero).
  double scale = 0;
  for (const double value : y) scale = std::max(scale, std::abs(value));
  const double floor = std::max(1e-300, 1e-6 * scale);

  ScalingModel best;
  best.cv_error = std::numeric_limits<double>::infinity();
  for (const Term& term : candidates()) {
    std::vector<double> t(n);
    bool finite = true;
    for (std::size_t k = 0; k < n; ++k) {
      t[k] = term.at(x[k]);
      finite = finite && std::isfinite(t[k]);
    }
    if (!finite) continue;
    double cv = 0;
    for (std::size_t skip = 0; skip < n; ++skip) {
      const auto [c0, c1] = least_squares(t, y, skip, term.constant);
      const double error = (c0 + c1 * t[skip] - y[skip]) / std::max(std::abs(y[skip]), floor);
      cv += error * error;
    }
    // Strictly better by a margin: ties keep the simpler, earlier candidate.
    if (!(cv < best.cv_error * (1 - 1e-9) - 1e-18)) continue;
    const auto [c0, c1] = least_squares(t, y, n, term.constant);
    best = ScalingModel{c0, c1, term.exponent, term.log_power, term.constant || c1 == 0, cv, 1};
  }
  if (std::abs(best.c0) <= 1e-12 * scale) best.c0 = 0;  // rounding noise of an exact fit
  double residual = 0;
  for (std::size_t k = 0; k < n; ++k) residual += (best(x[k]) - y[k]) * (best(x[k]) - y[k]);
  const double parameters = best.constant ? 1 : 2;
  if (total > 0 && static_cast<double>(n) - parameters > 0) {
    best.adjusted_r2 = 1 - (residual / (static_cast<double>(n) - parameters)) /
                               (total / (static_cast<double>(n) - 1));
  }
  return best;
}

}  // namespace orrery::report

#pragma once
// Scaling models over runs of different sizes (`orrery scaling`), in the
// spirit of Extra-P (Calotoiu et al., "Using automated performance modeling
// to find scalability bugs in complex codes", SC'13): per call path the
// best of the family
//     f(p) = c0 + c1 · p^i · log2(p)^j
// with i from {0, ±1/4, ±1/3, ±1/2, ±2/3, ±3/4, ±1, ±5/4, ±4/3, ±3/2, ±2, ±3}
// and j from {0, 1, 2}, plus the constant f(p) = c0. The coefficients of
// each candidate are a least-squares fit; the candidate chosen is the one
// with the smallest leave-one-out cross-validation error (each run predicted
// by the fit of the others, relative squared errors summed), ties going to
// the simpler term. Its adjusted R² over all runs says how well it fits.

#include <string>
#include <vector>

namespace orrery::report {

/// One fitted model c0 + c1 · p^exponent · log2(p)^log_power.
struct ScalingModel {
  double c0 = 0;
  double c1 = 0;
  double exponent = 0;    ///< i
  int log_power = 0;      ///< j
  bool constant = true;   ///< no growth term (c1 = 0)
  double cv_error = 0;    ///< leave-one-out relative squared error, summed
  double adjusted_r2 = 1; ///< over all points; 1 for an exact (or constant) fit

  [[nodiscard]] double operator()(double p) const;
  /// "0.001 + 0.0002 * p^(1/2) * log2(p)^2" (exponents as fractions, `x` the variable).
  [[nodiscard]] std::string text(const std::string& x = "p") const;
  /// How fast the model grows: (i, j) of a growing term, (0, 0) otherwise; compare lexicographically.
  [[nodiscard]] std::pair<double, int> growth() const;
};

/// The best model of `y` over `x` (x > 0; at least 3 distinct x). Throws
/// std::invalid_argument otherwise.
[[nodiscard]] ScalingModel fit_scaling_model(const std::vector<double>& x,
                                             const std::vector<double>& y);

}  // namespace orrery::report

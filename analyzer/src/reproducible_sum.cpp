#include "reproducible_sum.h"

#include <cmath>
#include <cstdint>
#include <vector>

#include "vmpi.h"

namespace orrery::analyzer {
namespace {

constexpr int kFractionBits = 40;
constexpr double kLimit = 4.611686018427387904e18;  // 2^62
// Scaling by a power of two is exact here (no overflow, no subnormals), so
// these products equal std::ldexp(x, ±kFractionBits) without the library call.
constexpr double kScale = static_cast<double>(int64_t{1} << kFractionBits);
constexpr double kUnscale = 1.0 / kScale;

}  // namespace

void sum_over_members(double* values, std::size_t n, MPI_Comm comm) {
  std::vector<int64_t> parts(2 * n);
  for (std::size_t k = 0; k < n; ++k) {
    double value = values[k];
    if (!std::isfinite(value)) value = 0.0;
    value = value > kLimit ? kLimit : (value < -kLimit ? -kLimit : value);  // finite: as fmax/fmin
    const double whole = std::floor(value);
    parts[2 * k] = static_cast<int64_t>(whole);
    parts[2 * k + 1] = static_cast<int64_t>((value - whole) * kScale);
  }
  vmpi::Allreduce(MPI_IN_PLACE, parts.data(), static_cast<int>(parts.size()), MPI_INT64_T,
                  MPI_SUM, comm);
  for (std::size_t k = 0; k < n; ++k) {
    values[k] = static_cast<double>(parts[2 * k]) + static_cast<double>(parts[2 * k + 1]) * kUnscale;
  }
}

}  // namespace orrery::analyzer

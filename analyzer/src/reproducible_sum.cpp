#include "reproducible_sum.h"

#include <cmath>
#include <cstdint>
#include <vector>

#include "vmpi.h"

namespace orrery::analyzer {
namespace {

constexpr int kFractionBits = 40;
constexpr double kLimit = 4.611686018427387904e18;  // 2^62

}  // namespace

void sum_over_members(double* values, std::size_t n, MPI_Comm comm) {
  std::vector<int64_t> parts(2 * n);
  for (std::size_t k = 0; k < n; ++k) {
    double value = values[k];
    if (!std::isfinite(value)) value = 0.0;
    value = std::fmax(-kLimit, std::fmin(kLimit, value));
    const double whole = std::floor(value);
    parts[2 * k] = static_cast<int64_t>(whole);
    parts[2 * k + 1] = static_cast<int64_t>(std::ldexp(value - whole, kFractionBits));
  }
  vmpi::Allreduce(MPI_IN_PLACE, parts.data(), static_cast<int>(parts.size()), MPI_INT64_T,
                  MPI_SUM, comm);
  for (std::size_t k = 0; k < n; ++k) {
    values[k] = static_cast<double>(parts[2 * k]) +
                std::ldexp(static_cast<double>(parts[2 * k + 1]), -kFractionBits);
  }
}

}  // namespace orrery::analyzer

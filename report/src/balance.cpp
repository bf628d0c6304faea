#include "orrery/report/balance.h"

#include <cmath>

namespace orrery::report {

ImbalanceParts imbalance_parts(const std::vector<double>& time, const std::vector<double>& visits) {
  const std::size_t n = time.size();
  ImbalanceParts parts;
  for (auto* part : {&parts.above, &parts.above_single, &parts.below, &parts.below_bypass,
                     &parts.below_singularity}) {
    part->assign(n, 0.0);
  }
  std::size_t present = 0, visitors = 0;
  double sum = 0;
  for (std::size_t l = 0; l < n; ++l) {
    if (std::isnan(time[l]) || (l < visits.size() && std::isnan(visits[l]))) continue;
    ++present;
    if (l < visits.size() && visits[l] > 0) {
      ++visitors;
      sum += time[l];
    }
  }
  if (visitors == 0 || present < 2) return parts;
  const double mean = sum / static_cast<double>(visitors);
  const auto all = static_cast<double>(present);
  for (std::size_t l = 0; l < n; ++l) {
    if (std::isnan(time[l]) || (l < visits.size() && std::isnan(visits[l]))) continue;
    const bool visited = l < visits.size() && visits[l] > 0;
    if (visitors == 1) {
      if (visited) {
        parts.above_single[l] = time[l] * (all - 1) / all;
      } else {
        parts.below_singularity[l] = sum / all;
      }
    } else if (!visited) {
      parts.below_bypass[l] = mean;
    } else if (time[l] > mean) {
      parts.above[l] = time[l] - mean;
    } else {
      parts.below[l] = mean - time[l];
    }
  }
  return parts;
}

CriticalPathSplit split_critical_path(const std::vector<double>& critical,
                                      const std::vector<double>& time,
                                      const std::vector<bool>& ranks) {
  const std::size_t n = critical.size();
  CriticalPathSplit split{critical, std::vector<double>(n, 0.0), std::vector<double>(n, 0.0)};
  double on_path = 0, sum = 0;
  std::size_t processes = 0;
  for (std::size_t l = 0; l < n; ++l) {
    if (!std::isnan(critical[l])) on_path += critical[l];
    if (l < ranks.size() && ranks[l] && l < time.size() && !std::isnan(time[l])) {
      sum += time[l];
      ++processes;
    }
  }
  if (processes == 0 || on_path <= 0) return split;
  const double excess = on_path - sum / static_cast<double>(processes);
  if (excess <= 0) return split;
  double weights = 0;
  for (std::size_t l = 0; l < n; ++l) {
    if (l < ranks.size() && ranks[l] && !std::isnan(time[l])) weights += std::max(0.0, on_path - time[l]);
  }
  for (std::size_t l = 0; l < n; ++l) {
    if (std::isnan(critical[l])) continue;
    split.imbalance[l] = critical[l] * excess / on_path;
    split.critical_path[l] = critical[l] - split.imbalance[l];
    if (weights > 0 && l < ranks.size() && ranks[l] && !std::isnan(time[l])) {
      split.impact[l] = excess * std::max(0.0, on_path - time[l]) / weights;
    }
  }
  return split;
}

}  // namespace orrery::report

#include "orrery/report/balance.h"

#include <algorithm>
#include <cmath>

namespace orrery::report {

void add_imbalance_location(ImbalanceTotals& totals, double time, double visits) {
  if (std::isnan(time) || std::isnan(visits)) return;
  ++totals.present;
  if (visits > 0) {
    ++totals.visitors;
    totals.sum += time;
  }
}

std::array<double, 5> imbalance_at(const ImbalanceTotals& totals, double time, double visits) {
  std::array<double, 5> parts{};  // above, above_single, below, below_bypass, below_singularity
  if (totals.visitors == 0 || totals.present < 2) return parts;
  if (std::isnan(time) || std::isnan(visits)) return parts;
  const double mean = totals.sum / static_cast<double>(totals.visitors);
  const auto all = static_cast<double>(totals.present);
  const bool visited = visits > 0;
  if (totals.visitors == 1) {
    if (visited) {
      parts[1] = time * (all - 1) / all;
    } else {
      parts[4] = totals.sum / all;
    }
  } else if (!visited) {
    parts[3] = mean;
  } else if (time > mean) {
    parts[0] = time - mean;
  } else {
    parts[2] = mean - time;
  }
  return parts;
}

ImbalanceParts imbalance_parts(const std::vector<double>& time, const std::vector<double>& visits) {
  const std::size_t n = time.size();
  const auto visits_at = [&](std::size_t l) {
    return l < visits.size() ? visits[l] : 0.0;
  };
  ImbalanceTotals totals;
  for (std::size_t l = 0; l < n; ++l) add_imbalance_location(totals, time[l], visits_at(l));
  ImbalanceParts parts;
  for (auto* part : {&parts.above, &parts.above_single, &parts.below, &parts.below_bypass,
                     &parts.below_singularity}) {
    part->assign(n, 0.0);
  }
  for (std::size_t l = 0; l < n; ++l) {
    const std::array<double, 5> at = imbalance_at(totals, time[l], visits_at(l));
    parts.above[l] = at[0];
    parts.above_single[l] = at[1];
    parts.below[l] = at[2];
    parts.below_bypass[l] = at[3];
    parts.below_singularity[l] = at[4];
  }
  return parts;
}

void add_critical_location(CriticalPathTotals& totals, double critical, double time, bool rank) {
  if (!std::isnan(critical)) totals.on_path += critical;
  if (rank && !std::isnan(time)) {
    totals.time_sum += time;
    ++totals.processes;
  }
}

void add_impact_weight(CriticalPathTotals& totals, double time, bool rank) {
  if (rank && !std::isnan(time)) totals.weights += std::max(0.0, totals.on_path - time);
}

std::array<double, 3> critical_path_at(const CriticalPathTotals& totals, double critical,
                                       double time, bool rank) {
  std::array<double, 3> at{critical, 0.0, 0.0};  // critical_path, imbalance, impact
  if (totals.processes == 0 || totals.on_path <= 0) return at;
  const double excess = totals.on_path - totals.time_sum / static_cast<double>(totals.processes);
  if (excess <= 0 || std::isnan(critical)) return at;
  at[1] = critical * excess / totals.on_path;
  at[0] = critical - at[1];
  if (totals.weights > 0 && rank && !std::isnan(time)) {
    at[2] = excess * std::max(0.0, totals.on_path - time) / totals.weights;
  }
  return at;
}

CriticalPathSplit split_critical_path(const std::vector<double>& critical,
                                      const std::vector<double>& time,
                                      const std::vector<bool>& ranks) {
  const std::size_t n = critical.size();
  const auto rank_at = [&](std::size_t l) { return l < ranks.size() && ranks[l] && l < time.size(); };
  const auto time_at = [&](std::size_t l) { return l < time.size() ? time[l] : 0.0; };
  CriticalPathTotals totals;
  for (std::size_t l = 0; l < n; ++l) add_critical_location(totals, critical[l], time_at(l), rank_at(l));
  for (std::size_t l = 0; l < n; ++l) add_impact_weight(totals, time_at(l), rank_at(l));
  CriticalPathSplit split{critical, std::vector<double>(n, 0.0), std::vector<double>(n, 0.0)};
  for (std::size_t l = 0; l < n; ++l) {
    const std::array<double, 3> at = critical_path_at(totals, critical[l], time_at(l), rank_at(l));
    split.critical_path[l] = at[0];
    split.imbalance[l] = at[1];
    split.impact[l] = at[2];
  }
  return split;
}

}  // namespace orrery::report

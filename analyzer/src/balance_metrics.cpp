#include "orrery/analyzer/balance_metrics.h"

#include <algorithm>

#include "orrery/report/balance.h"

namespace orrery::analyzer {

BalanceMetrics::BalanceMetrics(const report::CubeHeader& header,
                               const patterns::PatternRegistry& registry)
    : header_(header),
      locations_(header.locations.size()),
      execution_(registry.row("execution")),
      visits_(registry.row("visits")),
      critical_path_(registry.row("critical_path")),
      critical_imbalance_(registry.row("critical_path_imbalance")),
      impact_(registry.row("performance_impact")),
      imbalance_(registry.row("imbalance")),
      above_(registry.row("imbalance_above")),
      above_single_(registry.row("imbalance_above_single")),
      below_(registry.row("imbalance_below")),
      below_bypass_(registry.row("imbalance_below_bypass")),
      below_singularity_(registry.row("imbalance_below_singularity")) {
  in_time_tree_.assign(registry.size(), false);
  for (const std::size_t m : time_rows(registry)) in_time_tree_[m] = true;
  for (const report::Location& location : header.locations) ranks_.push_back(location.thread == 0);
  const std::size_t cells = header.callpaths.size() * locations_;
  time_.assign(cells, 0.0);
  computation_.assign(cells, 0.0);
  visit_counts_.assign(cells, 0.0);
  critical_.assign(cells, 0.0);
}

std::vector<std::size_t> BalanceMetrics::time_rows(const patterns::PatternRegistry& registry) {
  const std::size_t time_row = registry.row("time");
  std::vector<std::size_t> rows;
  for (std::size_t m = 0; m < registry.size(); ++m) {
    int up = static_cast<int>(m);
    while (registry.parent_row(static_cast<std::size_t>(up)) >= 0) {
      up = registry.parent_row(static_cast<std::size_t>(up));
    }
    if (static_cast<std::size_t>(up) == time_row) rows.push_back(m);
  }
  return rows;
}

std::vector<double> BalanceMetrics::row(const report::MetricValues& values, std::size_t c) const {
  const auto first = values.begin() + static_cast<std::ptrdiff_t>(c * locations_);
  return {first, first + static_cast<std::ptrdiff_t>(locations_)};
}

void BalanceMetrics::take(std::size_t metric, report::MetricValues& values) {
  if (values.size() != time_.size()) return;
  if (metric < in_time_tree_.size() && in_time_tree_[metric]) {
    for (std::size_t i = 0; i < values.size(); ++i) time_[i] += values[i];
  }
  if (metric == execution_) computation_ = values;
  if (metric == visits_) visit_counts_ = values;
  if (metric == critical_path_) critical_ = values;
  const std::size_t callpaths = header_.callpaths.size();
  if (metric == critical_path_ || metric == critical_imbalance_ || metric == impact_) {
    for (std::size_t c = 0; c < callpaths; ++c) {
      const report::CriticalPathSplit split =
          report::split_critical_path(row(critical_, c), row(time_, c), ranks_);
      const std::vector<double>& part = metric == critical_path_ ? split.critical_path
                                        : metric == critical_imbalance_ ? split.imbalance
                                                                        : split.impact;
      std::copy(part.begin(), part.end(), values.begin() + static_cast<std::ptrdiff_t>(c * locations_));
    }
    return;
  }
  if (metric == imbalance_) {
    std::fill(values.begin(), values.end(), 0.0);  // an aggregate: the parts below
    return;
  }
  const std::vector<double> report::ImbalanceParts::* part = nullptr;
  if (metric == above_) part = &report::ImbalanceParts::above;
  if (metric == above_single_) part = &report::ImbalanceParts::above_single;
  if (metric == below_) part = &report::ImbalanceParts::below;
  if (metric == below_bypass_) part = &report::ImbalanceParts::below_bypass;
  if (metric == below_singularity_) part = &report::ImbalanceParts::below_singularity;
  if (part == nullptr) return;
  for (std::size_t c = 0; c < callpaths; ++c) {
    const report::ImbalanceParts parts =
        report::imbalance_parts(row(computation_, c), row(visit_counts_, c));
    const std::vector<double>& chosen = parts.*part;
    std::copy(chosen.begin(), chosen.end(), values.begin() + static_cast<std::ptrdiff_t>(c * locations_));
  }
}

std::vector<BalanceMetrics::PathEntry> BalanceMetrics::path_entries(std::size_t top) const {
  std::vector<PathEntry> entries;
  for (std::size_t c = 0; c < header_.callpaths.size(); ++c) {
    PathEntry entry{c, 0, 0, 0};
    double most = 0;
    for (std::size_t l = 0; l < locations_; ++l) {
      const double value = critical_[c * locations_ + l];
      if (!(value > 0)) continue;
      entry.seconds += value;
      if (value > most) {
        most = value;
        entry.location = l;
      }
    }
    if (entry.seconds <= 0) continue;
    const report::CriticalPathSplit split =
        report::split_critical_path(row(critical_, c), row(time_, c), ranks_);
    for (const double part : split.imbalance) entry.above_mean += part;
    entries.push_back(entry);
  }
  std::sort(entries.begin(), entries.end(),
            [](const PathEntry& a, const PathEntry& b) { return a.seconds > b.seconds; });
  if (entries.size() > top) entries.resize(top);
  return entries;
}

report::FunctionGroups BalanceMetrics::groups(const std::vector<report::GroupRule>& rules) const {
  return report::function_groups(header_, time_, rules);
}

}  // namespace orrery::analyzer

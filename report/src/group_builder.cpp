// function_groups() in two passes over blocks of locations (orrery/report/groups.h).

#include <fnmatch.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "orrery/report/groups.h"

namespace orrery::report {

FunctionGroupBuilder::FunctionGroupBuilder(const CubeHeader& header, std::vector<GroupRule> rules)
    : header_(header),
      rules_(std::move(rules)),
      has_callpath_(header.regions.size(), false),
      region_total_(header.regions.size(), 0.0),
      tops_(kBuiltinTopGroups.begin(), kBuiltinTopGroups.end()) {
  for (const Callpath& callpath : header.callpaths) {
    const auto region = static_cast<std::size_t>(callpath.region);
    if (region < has_callpath_.size()) has_callpath_[region] = true;
  }
}

void FunctionGroupBuilder::regions_of(const double* time, std::size_t count) {
  block_.assign(header_.regions.size() * count, 0.0);
  for (std::size_t c = 0; c < header_.callpaths.size(); ++c) {
    const auto region = static_cast<std::size_t>(header_.callpaths[c].region);
    if (region >= has_callpath_.size()) continue;
    double* row = block_.data() + region * count;
    for (std::size_t l = 0; l < count; ++l) {
      const double value = time[c * count + l];
      if (!std::isnan(value)) row[l] += value;
    }
  }
}

void FunctionGroupBuilder::add_totals(const double* time, std::size_t /*first*/, std::size_t count) {
  regions_of(time, count);
  for (std::size_t r = 0; r < region_total_.size(); ++r) {
    for (std::size_t l = 0; l < count; ++l) region_total_[r] += block_[r * count + l];
  }
}

void FunctionGroupBuilder::assign_groups() {
  assigned_ = true;
  double all = 0;  // the run's time: every region's
  for (std::size_t r = 0; r < region_total_.size(); ++r) {
    if (has_callpath_[r]) all += region_total_[r];
  }
  // (top, second) of each region that counts; tops in the built-in order, then the user's.
  std::vector<std::pair<std::size_t, std::string>> region_key(region_total_.size());
  std::map<std::pair<std::size_t, std::string>, int> index;
  std::vector<bool> counts(region_total_.size(), false);
  for (std::size_t r = 0; r < region_total_.size(); ++r) {
    if (!has_callpath_[r]) continue;
    if (region_total_[r] < kTinyFunctionShare * all) {
      filtered_ += region_total_[r];
      continue;
    }
    const Region& region = header_.regions[r];
    auto [top_name, second] = default_group_of(region);
    for (const GroupRule& rule : rules_) {
      if (fnmatch(rule.pattern.c_str(), region.name.c_str(), 0) != 0) continue;
      top_name = rule.top;
      if (!rule.second.empty()) second = rule.second;
      break;
    }
    auto top = std::find(tops_.begin(), tops_.end(), top_name);
    if (top == tops_.end()) top = tops_.insert(tops_.end(), top_name);
    region_key[r] = {static_cast<std::size_t>(top - tops_.begin()), second};
    index.emplace(region_key[r], 0);
    counts[r] = true;
  }
  for (auto& [key, position] : index) {
    position = static_cast<int>(keys_.size());
    keys_.push_back(key);
  }
  group_of_region_.assign(region_total_.size(), -1);
  for (std::size_t r = 0; r < region_total_.size(); ++r) {
    if (counts[r]) group_of_region_[r] = index.at(region_key[r]);
  }
  seconds_.assign(keys_.size(), std::vector<double>(header_.locations.size(), 0.0));
}

void FunctionGroupBuilder::add_values(const double* time, std::size_t first, std::size_t count) {
  if (!assigned_) assign_groups();
  regions_of(time, count);
  for (std::size_t r = 0; r < group_of_region_.size(); ++r) {
    if (group_of_region_[r] < 0) continue;
    std::vector<double>& values = seconds_[static_cast<std::size_t>(group_of_region_[r])];
    for (std::size_t l = 0; l < count; ++l) values[first + l] += block_[r * count + l];
  }
}

FunctionGroups FunctionGroupBuilder::finish() {
  if (!assigned_) assign_groups();
  const std::size_t n = header_.locations.size();
  FunctionGroups result;
  result.locations = n;
  result.filtered = filtered_;
  std::vector<double> run(n, 0.0);
  for (const std::vector<double>& values : seconds_) {
    for (std::size_t l = 0; l < n; ++l) run[l] += values[l];
  }
  const auto sum = [](const std::vector<double>& v) {
    double s = 0;
    for (const double x : v) s += x;
    return s;
  };
  for (std::size_t t = 0; t < tops_.size(); ++t) {
    std::vector<std::pair<std::string, const std::vector<double>*>> children;
    std::vector<double> total(n, 0.0);
    for (std::size_t k = 0; k < keys_.size(); ++k) {
      if (keys_[k].first != t) continue;
      children.emplace_back(keys_[k].second, &seconds_[k]);
      for (std::size_t l = 0; l < n; ++l) total[l] += seconds_[k][l];
    }
    if (children.empty()) continue;
    std::stable_sort(children.begin(), children.end(),
                     [&](const auto& x, const auto& y) { return sum(*x.second) > sum(*y.second); });
    const auto top_row = static_cast<int32_t>(result.groups.size());
    result.groups.push_back({tops_[t], -1, load_similarity(total.data(), run.data(), n)});
    result.time.insert(result.time.end(), total.begin(), total.end());
    for (const auto& [name, values] : children) {
      result.groups.push_back({name, top_row, load_similarity(values->data(), total.data(), n)});
      result.time.insert(result.time.end(), values->begin(), values->end());
    }
  }
  return result;
}

}  // namespace orrery::report

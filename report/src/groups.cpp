// Function groups: classification, the grouping file, totals, similarity
// (orrery/report/groups.h).

#include "orrery/report/groups.h"

#include <fnmatch.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <map>

#include "orrery/error.h"

namespace orrery::report {
namespace {

std::string trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

}  // namespace

std::vector<GroupRule> read_group_rules(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path + ": cannot read the grouping file");
  std::vector<GroupRule> rules;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::string text = trim(line);
    if (text.empty() || text[0] == '#') continue;
    const auto equals = text.find('=');
    const std::string where = path + ":" + std::to_string(number) + ": ";
    if (equals == std::string::npos) {
      throw InputError(where + "expected 'TOP / SECOND = GLOB' or 'TOP = GLOB'");
    }
    const std::string group = trim(text.substr(0, equals));
    GroupRule rule{group, "", trim(text.substr(equals + 1))};
    if (const auto slash = group.find('/'); slash != std::string::npos) {
      rule.top = trim(group.substr(0, slash));
      rule.second = trim(group.substr(slash + 1));
    }
    if (rule.top.empty() || rule.pattern.empty()) {
      throw InputError(where + "a group name and a pattern are needed: 'TOP / SECOND = GLOB'");
    }
    rules.push_back(std::move(rule));
  }
  return rules;
}

double load_similarity(const double* a, const double* b, std::size_t n) {
  double mean_a = 0, mean_b = 0;
  std::size_t count = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (std::isnan(a[i]) || std::isnan(b[i])) continue;
    mean_a += a[i];
    mean_b += b[i];
    ++count;
  }
  if (count == 0) return 1;
  mean_a /= static_cast<double>(count);
  mean_b /= static_cast<double>(count);
  double ab = 0, aa = 0, bb = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (std::isnan(a[i]) || std::isnan(b[i])) continue;
    ab += (a[i] - mean_a) * (b[i] - mean_b);
    aa += (a[i] - mean_a) * (a[i] - mean_a);
    bb += (b[i] - mean_b) * (b[i] - mean_b);
  }
  // Flat within rounding: no imbalance to compare.
  const double scale_a = std::max(std::abs(mean_a), 1e-300), scale_b = std::max(std::abs(mean_b), 1e-300);
  const bool flat_a = std::sqrt(aa / static_cast<double>(count)) <= 1e-12 * scale_a;
  const bool flat_b = std::sqrt(bb / static_cast<double>(count)) <= 1e-12 * scale_b;
  if (flat_a && flat_b) return 1;
  if (flat_a || flat_b) return 0.5;
  const double r = std::clamp(ab / std::sqrt(aa * bb), -1.0, 1.0);
  return (1 + r) / 2;
}

FunctionGroups function_groups(const CubeHeader& header, const std::vector<double>& time,
                               const std::vector<GroupRule>& rules) {
  const std::size_t n = header.locations.size();
  FunctionGroups result;
  result.locations = n;
  // Per region: its time per location, and its total.
  std::vector<std::vector<double>> by_region(header.regions.size());
  double all = 0;
  for (std::size_t c = 0; c < header.callpaths.size(); ++c) {
    const auto region = static_cast<std::size_t>(header.callpaths[c].region);
    if (region >= by_region.size()) continue;
    auto& row = by_region[region];
    if (row.empty()) row.assign(n, 0.0);
    for (std::size_t l = 0; l < n && c * n + l < time.size(); ++l) {
      const double value = time[c * n + l];
      if (std::isnan(value)) continue;
      row[l] += value;
      all += value;
    }
  }
  // (top, second) → time per location; tops in the built-in order, then the user's.
  std::vector<std::string> tops(kBuiltinTopGroups.begin(), kBuiltinTopGroups.end());
  std::map<std::pair<std::size_t, std::string>, std::vector<double>> seconds;
  for (std::size_t r = 0; r < by_region.size(); ++r) {
    if (by_region[r].empty()) continue;
    double total = 0;
    for (const double v : by_region[r]) total += v;
    if (total < kTinyFunctionShare * all) {
      result.filtered += total;
      continue;
    }
    const Region& region = header.regions[r];
    auto [top_name, second] = default_group_of(region);
    for (const GroupRule& rule : rules) {
      if (fnmatch(rule.pattern.c_str(), region.name.c_str(), 0) != 0) continue;
      top_name = rule.top;
      if (!rule.second.empty()) second = rule.second;
      break;
    }
    auto top = std::find(tops.begin(), tops.end(), top_name);
    if (top == tops.end()) top = tops.insert(tops.end(), top_name);
    auto& values = seconds[{static_cast<std::size_t>(top - tops.begin()), second}];
    if (values.empty()) values.assign(n, 0.0);
    for (std::size_t l = 0; l < n; ++l) values[l] += by_region[r][l];
  }
  std::vector<double> run(n, 0.0);
  for (const auto& [key, values] : seconds) {
    for (std::size_t l = 0; l < n; ++l) run[l] += values[l];
  }
  for (std::size_t t = 0; t < tops.size(); ++t) {
    std::vector<std::pair<std::string, const std::vector<double>*>> children;
    std::vector<double> total(n, 0.0);
    for (const auto& [key, values] : seconds) {
      if (key.first != t) continue;
      children.emplace_back(key.second, &values);
      for (std::size_t l = 0; l < n; ++l) total[l] += values[l];
    }
    if (children.empty()) continue;
    const auto sum = [&](const std::vector<double>& v) {
      double s = 0;
      for (const double x : v) s += x;
      return s;
    };
    std::stable_sort(children.begin(), children.end(),
                     [&](const auto& x, const auto& y) { return sum(*x.second) > sum(*y.second); });
    const auto top_row = static_cast<int32_t>(result.groups.size());
    result.groups.push_back({tops[t], -1, load_similarity(total.data(), run.data(), n)});
    result.time.insert(result.time.end(), total.begin(), total.end());
    for (const auto& [name, values] : children) {
      result.groups.push_back({name, top_row, load_similarity(values->data(), total.data(), n)});
      result.time.insert(result.time.end(), values->begin(), values->end());
    }
  }
  return result;
}

}  // namespace orrery::report

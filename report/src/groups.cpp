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
  FunctionGroupBuilder builder(header, rules);
  if (time.size() >= header.callpaths.size() * n) {
    builder.add_totals(time.data(), 0, n);
    builder.add_values(time.data(), 0, n);
  }
  return builder.finish();
}

}  // namespace orrery::report

#include "orrery/report/validate.h"

#include <set>

namespace orrery::report {
namespace {

/// A parent must come earlier in pre-order, or be -1 for a root.
bool valid_parent(int32_t parent, std::size_t row) {
  return parent == -1 || (parent >= 0 && static_cast<std::size_t>(parent) < row);
}

std::string metrics_problem(const std::vector<Metric>& metrics) {
  std::set<std::string> seen;
  for (std::size_t row = 0; row < metrics.size(); ++row) {
    const Metric& metric = metrics[row];
    const std::string which = "metric " + std::to_string(row);
    if (metric.name.empty() || metric.name == "." || metric.name.find('/') != std::string::npos) {
      return which + " has an invalid name '" + metric.name + "'";
    }
    if (!seen.insert(metric.name).second) {
      return "metric name '" + metric.name + "' appears twice";
    }
    if (!valid_parent(metric.parent, row)) {
      return which + " ('" + metric.name + "') has parent " + std::to_string(metric.parent) +
             ", not an earlier row";
    }
  }
  return {};
}

std::string callpaths_problem(const CubeHeader& header) {
  const auto regions = header.regions.size();
  for (std::size_t row = 0; row < header.callpaths.size(); ++row) {
    const Callpath& callpath = header.callpaths[row];
    const std::string which = "call path " + std::to_string(row);
    if (!valid_parent(callpath.parent, row)) {
      return which + " has parent " + std::to_string(callpath.parent) + ", not an earlier row";
    }
    if (callpath.region < 0 || static_cast<std::size_t>(callpath.region) >= regions) {
      return which + " refers to region " + std::to_string(callpath.region) + " of " +
             std::to_string(regions);
    }
  }
  return {};
}

}  // namespace

std::string header_problem(const CubeHeader& header) {
  if (auto problem = metrics_problem(header.metrics); !problem.empty()) {
    return problem;
  }
  return callpaths_problem(header);
}

}  // namespace orrery::report

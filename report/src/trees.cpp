#include "orrery/report/trees.h"

#include <stdexcept>

namespace orrery::report {

std::vector<std::string> callpath_labels(const CubeHeader& header) {
  std::vector<std::string> labels;
  labels.reserve(header.callpaths.size());
  for (const Callpath& callpath : header.callpaths) {
    const std::string& name = header.regions.at(static_cast<std::size_t>(callpath.region)).name;
    labels.push_back(callpath.parent < 0
                         ? name
                         : labels.at(static_cast<std::size_t>(callpath.parent)) + kCallpathSeparator + name);
  }
  return labels;
}

void walk_tree(const std::vector<int32_t>& parents,
               const std::function<void(std::size_t, std::size_t)>& enter,
               const std::function<void(std::size_t, std::size_t)>& leave) {
  std::vector<std::vector<std::size_t>> children(parents.size());
  std::vector<std::size_t> roots;
  for (std::size_t row = 0; row < parents.size(); ++row) {
    const int32_t parent = parents[row];
    if (parent < 0) {
      roots.push_back(row);
    } else if (static_cast<std::size_t>(parent) < parents.size() && static_cast<std::size_t>(parent) != row) {
      children[static_cast<std::size_t>(parent)].push_back(row);
    }
  }
  std::vector<bool> seen(parents.size(), false);
  struct Open {
    std::size_t row;
    std::size_t next_child;
  };
  std::vector<Open> stack;
  for (const std::size_t root : roots) {
    seen[root] = true;
    enter(root, 0);
    stack.push_back({root, 0});
    while (!stack.empty()) {
      Open& top = stack.back();
      if (top.next_child == children[top.row].size()) {
        leave(top.row, stack.size() - 1);
        stack.pop_back();
        continue;
      }
      const std::size_t child = children[top.row][top.next_child++];
      if (seen[child]) continue;  // a cycle in a corrupt file
      seen[child] = true;
      enter(child, stack.size());
      stack.push_back({child, 0});
    }
  }
}

std::vector<std::string> callpath_chain(const CubeHeader& header, std::size_t row) {
  std::vector<std::string> chain;
  for (int64_t c = static_cast<int64_t>(row);
       c >= 0 && static_cast<std::size_t>(c) < header.callpaths.size() && chain.size() <= header.callpaths.size();
       c = header.callpaths[static_cast<std::size_t>(c)].parent) {
    const auto region = static_cast<std::size_t>(header.callpaths[static_cast<std::size_t>(c)].region);
    chain.push_back(region < header.regions.size() ? header.regions[region].name : "?");
  }
  return {chain.rbegin(), chain.rend()};
}

std::string callpath_label(const CubeHeader& header, std::size_t row) {
  std::string label;
  for (const std::string& name : callpath_chain(header, row)) {
    if (!label.empty()) label += kCallpathSeparator;
    label += name;
  }
  return label;
}

std::vector<int> callpath_depths(const CubeHeader& header) {
  std::vector<int> depths;
  depths.reserve(header.callpaths.size());
  for (const Callpath& callpath : header.callpaths) {
    depths.push_back(callpath.parent < 0 ? 0
                                         : depths.at(static_cast<std::size_t>(callpath.parent)) + 1);
  }
  return depths;
}

std::vector<std::size_t> metric_subtree(const CubeHeader& header, std::size_t metric_row) {
  // Pre-order: a descendant comes after its ancestor, so one forward pass marks the subtree.
  std::vector<bool> inside(header.metrics.size(), false);
  std::vector<std::size_t> rows;
  inside.at(metric_row) = true;
  rows.push_back(metric_row);
  for (std::size_t row = metric_row + 1; row < header.metrics.size(); ++row) {
    const int32_t parent = header.metrics[row].parent;
    if (parent >= 0 && inside[static_cast<std::size_t>(parent)]) {
      inside[row] = true;
      rows.push_back(row);
    }
  }
  return rows;
}

void make_callpath_inclusive(const CubeHeader& header, MetricValues& values) {
  const std::size_t width = header.locations.size();
  if (values.size() != header.callpaths.size() * width) {
    throw std::invalid_argument("make_callpath_inclusive: values do not match the header");
  }
  // Children follow their parents in pre-order: walking backwards, each row is
  // complete before it is added to its parent.
  for (std::size_t row = header.callpaths.size(); row-- > 0;) {
    const int32_t parent = header.callpaths[row].parent;
    if (parent < 0 || static_cast<std::size_t>(parent) >= row) {
      continue;  // a root, or a parent out of pre-order in a corrupt report
    }
    const double* child = values.data() + row * width;
    double* target = values.data() + static_cast<std::size_t>(parent) * width;
    for (std::size_t l = 0; l < width; ++l) {
      target[l] += child[l];
    }
  }
}

std::vector<double> sum_over_locations(const CubeHeader& header, const MetricValues& values) {
  const std::size_t width = header.locations.size();
  std::vector<double> sums(header.callpaths.size(), 0.0);
  for (std::size_t row = 0; row < sums.size(); ++row) {
    for (std::size_t l = 0; l < width; ++l) {
      sums[row] += values[row * width + l];
    }
  }
  return sums;
}

void add_values(MetricValues& sum, const MetricValues& addend) {
  if (sum.size() != addend.size()) {
    throw std::invalid_argument("add_values: shapes differ");
  }
  for (std::size_t i = 0; i < sum.size(); ++i) {
    sum[i] += addend[i];
  }
}

}  // namespace orrery::report

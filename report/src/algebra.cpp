// Union of cubes and element-wise combination (diff, merge, mean, sum).

#include "orrery/report/algebra.h"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "orrery/error.h"
#include "preorder_union.h"

namespace orrery::report {
namespace {

// Region names may contain '/', so identity keys join names with a control character.
constexpr char kChainSeparator = '\x1f';

void unite_metrics(const std::vector<const CubeHeader*>& headers, CubeUnion& united) {
  PreorderUnion tree;
  std::vector<const Metric*> first_seen;
  std::vector<std::vector<std::size_t>> nodes(headers.size());
  for (std::size_t i = 0; i < headers.size(); ++i) {
    for (const Metric& metric : headers[i]->metrics) {
      std::optional<std::size_t> parent;
      if (metric.parent >= 0) {
        parent = nodes[i][static_cast<std::size_t>(metric.parent)];
      }
      const std::size_t node = tree.add(metric.name, parent);
      if (node == first_seen.size()) {
        first_seen.push_back(&metric);
      }
      nodes[i].push_back(node);
    }
  }
  tree.lay_out();
  for (std::size_t row = 0; row < tree.size(); ++row) {
    Metric metric = *first_seen[tree.order()[row]];
    metric.parent = tree.parent_row(row);
    united.header.metrics.push_back(std::move(metric));
  }
  for (std::size_t i = 0; i < headers.size(); ++i) {
    for (const std::size_t node : nodes[i]) {
      united.inputs[i].metrics.push_back(tree.row_of(node));
    }
  }
}

void unite_callpaths(const std::vector<const CubeHeader*>& headers, CubeUnion& united) {
  PreorderUnion tree;
  std::vector<const Region*> region_of_node;
  std::vector<std::vector<std::size_t>> nodes(headers.size());
  for (std::size_t i = 0; i < headers.size(); ++i) {
    const CubeHeader& header = *headers[i];
    std::vector<std::string> keys;
    keys.reserve(header.callpaths.size());
    for (const Callpath& callpath : header.callpaths) {
      const Region& region = header.regions.at(static_cast<std::size_t>(callpath.region));
      std::optional<std::size_t> parent;
      std::string key = region.name;
      if (callpath.parent >= 0) {
        const auto parent_row = static_cast<std::size_t>(callpath.parent);
        parent = nodes[i][parent_row];
        key = keys[parent_row] + kChainSeparator + region.name;
      }
      const std::size_t node = tree.add(key, parent);
      if (node == region_of_node.size()) {
        region_of_node.push_back(&region);
      }
      nodes[i].push_back(node);
      keys.push_back(std::move(key));
    }
  }
  tree.lay_out();
  // Regions are identified by name too: one row per distinct name, first seen wins.
  std::map<std::string, int32_t> region_rows;
  for (std::size_t row = 0; row < tree.size(); ++row) {
    const Region& region = *region_of_node[tree.order()[row]];
    const auto [found, inserted] =
        region_rows.try_emplace(region.name, static_cast<int32_t>(united.header.regions.size()));
    if (inserted) {
      united.header.regions.push_back(region);
    }
    united.header.callpaths.push_back(Callpath{tree.parent_row(row), found->second});
  }
  for (std::size_t i = 0; i < headers.size(); ++i) {
    for (const std::size_t node : nodes[i]) {
      united.inputs[i].callpaths.push_back(tree.row_of(node));
    }
  }
}

void unite_locations(const std::vector<const CubeHeader*>& headers, CubeUnion& united) {
  std::map<std::pair<int32_t, int32_t>, const Location*> by_id;
  for (const CubeHeader* header : headers) {
    for (const Location& location : header->locations) {
      by_id.try_emplace({location.rank, location.thread}, &location);
    }
  }
  std::map<std::pair<int32_t, int32_t>, std::size_t> rows;
  for (const auto& [id, location] : by_id) {
    rows[id] = united.header.locations.size();
    united.header.locations.push_back(*location);
  }
  for (std::size_t i = 0; i < headers.size(); ++i) {
    for (const Location& location : headers[i]->locations) {
      united.inputs[i].locations.push_back(rows.at({location.rank, location.thread}));
    }
  }
}

}  // namespace

std::optional<std::size_t> CubeUnion::input_metric(std::size_t input, std::size_t m) const {
  const auto& map = inputs.at(input).metrics;
  const auto found = std::find(map.begin(), map.end(), m);
  if (found == map.end()) {
    return std::nullopt;
  }
  return static_cast<std::size_t>(found - map.begin());
}

CubeUnion unite(const std::vector<const CubeHeader*>& headers) {
  CubeUnion united;
  united.inputs.resize(headers.size());
  if (!headers.empty()) {
    united.header.attributes = headers.front()->attributes;
  }
  unite_metrics(headers, united);
  unite_callpaths(headers, united);
  unite_locations(headers, united);
  return united;
}

namespace {

/// a's row -> united row -> b's row.
std::vector<std::size_t> through_union(const std::vector<std::size_t>& a_to_union,
                                       const std::vector<std::size_t>& b_to_union,
                                       std::size_t union_rows) {
  std::vector<std::size_t> union_to_b(union_rows, RowMatch::kNoMatch);
  for (std::size_t row = b_to_union.size(); row-- > 0;) union_to_b[b_to_union[row]] = row;  // first wins
  std::vector<std::size_t> a_to_b;
  a_to_b.reserve(a_to_union.size());
  for (const std::size_t united : a_to_union) a_to_b.push_back(union_to_b[united]);
  return a_to_b;
}

}  // namespace

RowMatch match_rows(const CubeHeader& a, const CubeHeader& b) {
  const CubeUnion united = unite({&a, &b});
  const RowMap& in_a = united.inputs[0];
  const RowMap& in_b = united.inputs[1];
  return {through_union(in_a.metrics, in_b.metrics, united.header.metrics.size()),
          through_union(in_a.callpaths, in_b.callpaths, united.header.callpaths.size()),
          through_union(in_a.locations, in_b.locations, united.header.locations.size())};
}

MetricValues remap(const CubeUnion& united, std::size_t input, const MetricValues& values) {
  const RowMap& map = united.inputs.at(input);
  const std::size_t old_width = map.locations.size();
  const std::size_t new_width = united.header.locations.size();
  if (values.size() != map.callpaths.size() * old_width) {
    throw std::invalid_argument("remap: values do not match the input's header");
  }
  MetricValues out(united.header.callpaths.size() * new_width, 0.0);
  for (std::size_t c = 0; c < map.callpaths.size(); ++c) {
    double* target = out.data() + map.callpaths[c] * new_width;
    const double* source = values.data() + c * old_width;
    for (std::size_t l = 0; l < old_width; ++l) {
      // += because an input may hold two call paths with the same chain of names.
      target[map.locations[l]] += source[l];
    }
  }
  return out;
}

MetricValues combine_metric(const CubeUnion& united, std::size_t m, Combination how,
                            const MetricLoader& load) {
  const std::size_t inputs = united.inputs.size();
  if (how == Combination::kDifference && inputs != 2) {
    throw std::invalid_argument("a difference needs exactly two inputs");
  }
  MetricValues result(united.header.callpaths.size() * united.header.locations.size(), 0.0);
  for (std::size_t i = 0; i < inputs; ++i) {
    const auto row = united.input_metric(i, m);
    if (!row) {
      continue;
    }
    const MetricValues values = remap(united, i, load(i, *row));
    if (how == Combination::kMerge) {
      return values;
    }
    const double sign = (how == Combination::kDifference && i == 1) ? -1.0 : 1.0;
    for (std::size_t k = 0; k < result.size(); ++k) {
      result[k] += sign * values[k];
    }
  }
  if (how == Combination::kMean && inputs > 0) {
    for (double& value : result) {
      value /= static_cast<double>(inputs);
    }
  }
  return result;
}

Cube combine(const std::vector<const Cube*>& cubes, Combination how) {
  std::vector<const CubeHeader*> headers;
  for (const Cube* cube : cubes) {
    headers.push_back(&cube->header);
  }
  const CubeUnion united = unite(headers);
  Cube out;
  out.header = united.header;
  const MetricLoader load = [&](std::size_t input, std::size_t row) {
    const auto& values = cubes[input]->values;
    if (row < values.size()) {
      return values[row];
    }
    const auto& header = cubes[input]->header;
    return MetricValues(header.callpaths.size() * header.locations.size(), 0.0);
  };
  for (std::size_t m = 0; m < out.header.metrics.size(); ++m) {
    out.values.push_back(combine_metric(united, m, how, load));
  }
  return out;
}

Cube diff(const Cube& a, const Cube& b) { return combine({&a, &b}, Combination::kDifference); }
Cube merge(const std::vector<const Cube*>& cubes) { return combine(cubes, Combination::kMerge); }
Cube mean(const std::vector<const Cube*>& cubes) { return combine(cubes, Combination::kMean); }

}  // namespace orrery::report

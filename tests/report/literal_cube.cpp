#include "literal_cube.h"

#include <stdexcept>

namespace orrery::report::testing {
namespace {

std::string unit_of(const std::string& metric) {
  if (metric.rfind("bytes", 0) == 0) {
    return "bytes";
  }
  if (metric == "visits" || metric.find("count") != std::string::npos) {
    return "occ";
  }
  return "sec";
}

int32_t row_of(const std::vector<std::string>& names, const std::string& name) {
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) {
      return static_cast<int32_t>(i);
    }
  }
  return -1;
}

}  // namespace

Cube literal_cube(const LiteralCube& literal) {
  Cube cube;
  auto& header = cube.header;
  header.attributes = {"test", "literal", "2026-01-01T00:00:00Z"};
  std::vector<std::string> metric_names;
  for (const auto& [name, parent] : literal.metrics) {
    const int32_t parent_row = parent.empty() ? -1 : row_of(metric_names, parent);
    if (!parent.empty() && parent_row < 0) {
      throw std::logic_error("literal cube: parent metric listed after child: " + name);
    }
    header.metrics.push_back(
        {name, name + " (display)", parent_row, unit_of(name), "about " + name, "fix " + name});
    metric_names.push_back(name);
  }
  std::vector<std::string> region_names;
  for (const auto& chain : literal.callpaths) {
    const auto slash = chain.rfind('/');
    const std::string leaf = slash == std::string::npos ? chain : chain.substr(slash + 1);
    const std::string parent_chain = slash == std::string::npos ? "" : chain.substr(0, slash);
    int32_t region = row_of(region_names, leaf);
    if (region < 0) {
      region = static_cast<int32_t>(region_names.size());
      region_names.push_back(leaf);
      header.regions.push_back({leaf, leaf.rfind("MPI_", 0) == 0 ? "" : "app.c", 0,
                                leaf.rfind("MPI_", 0) == 0 ? "mpi" : "user"});
    }
    const int32_t parent = parent_chain.empty() ? -1 : row_of(literal.callpaths, parent_chain);
    if (!parent_chain.empty() && parent < 0) {
      throw std::logic_error("literal cube: call path listed before its parent: " + chain);
    }
    header.callpaths.push_back({parent, region});
  }
  for (int rank : literal.ranks) {
    header.locations.push_back({rank, 0, "node" + std::to_string(rank / 2),
                                "rank " + std::to_string(rank)});
  }
  const std::size_t n_locations = literal.ranks.size();
  for (const auto& name : metric_names) {
    MetricValues values(literal.callpaths.size() * n_locations, 0.0);
    if (auto found = literal.values.find(name); found != literal.values.end()) {
      if (found->second.size() != literal.callpaths.size()) {
        throw std::logic_error("literal cube: wrong number of rows for " + name);
      }
      for (std::size_t c = 0; c < found->second.size(); ++c) {
        if (found->second[c].size() != n_locations) {
          throw std::logic_error("literal cube: wrong number of columns for " + name);
        }
        for (std::size_t l = 0; l < n_locations; ++l) {
          values[c * n_locations + l] = found->second[c][l];
        }
      }
    }
    cube.values.push_back(std::move(values));
  }
  return cube;
}

std::vector<std::string> chains(const Cube& cube) {
  std::vector<std::string> out;
  for (const auto& callpath : cube.header.callpaths) {
    const std::string& name = cube.header.regions[static_cast<std::size_t>(callpath.region)].name;
    out.push_back(callpath.parent < 0 ? name
                                      : out[static_cast<std::size_t>(callpath.parent)] + "/" + name);
  }
  return out;
}

double value_at(const Cube& cube, const std::string& metric, const std::string& chain, int rank) {
  const auto& header = cube.header;
  std::size_t m = 0;
  while (m < header.metrics.size() && header.metrics[m].name != metric) {
    ++m;
  }
  const auto all = chains(cube);
  std::size_t c = 0;
  while (c < all.size() && all[c] != chain) {
    ++c;
  }
  std::size_t l = 0;
  while (l < header.locations.size() && header.locations[l].rank != rank) {
    ++l;
  }
  if (m == header.metrics.size() || c == all.size() || l == header.locations.size()) {
    throw std::out_of_range("value_at: no " + metric + " / " + chain + " / rank " +
                            std::to_string(rank));
  }
  return cube.values[m][c * header.locations.size() + l];
}

}  // namespace orrery::report::testing

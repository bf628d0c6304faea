// The function groups per time window (group_windows.h).

#include "group_windows.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

namespace orrery::viewer {

namespace tl = analyzer::timeline;

namespace {

/// Per trace region: the group row it adds to (a second-level group; its top group is its parent), or -1.
std::vector<int64_t> group_of_regions(const tl::Definitions& defs, const report::CubeHeader& header,
                                      const report::FunctionGroups& groups) {
  std::map<std::string, const report::Region*> by_name;
  for (const auto& region : header.regions) by_name.emplace(region.name, &region);
  std::vector<int64_t> out(defs.regions.size(), -1);
  for (std::size_t r = 0; r < defs.regions.size(); ++r) {
    const auto found = by_name.find(defs.regions[r].name);
    if (found == by_name.end()) continue;
    const auto [top, second] = report::default_group_of(*found->second);
    for (std::size_t g = 0; g < groups.groups.size(); ++g) {
      const auto& group = groups.groups[g];
      if (group.parent < 0 || group.name != second) continue;
      if (groups.groups[static_cast<std::size_t>(group.parent)].name == top) out[r] = static_cast<int64_t>(g);
    }
  }
  return out;
}

}  // namespace

nlohmann::json group_windows(TimelineSource& source, const report::CubeHeader& header,
                             const report::FunctionGroups& groups, std::size_t windows) {
  const auto& defs = source.definitions();
  const std::vector<int64_t> group_of = group_of_regions(defs, header, groups);
  const std::size_t n = groups.locations;
  const double width = defs.duration / static_cast<double>(windows);
  // [window][group][location]; NaN where a location has no rank in the trace.
  std::vector<double> values(windows * groups.groups.size() * n, std::nan(""));
  auto at = [&](std::size_t w, std::size_t g, std::size_t l) -> double& {
    return values[(w * groups.groups.size() + g) * n + l];
  };
  double unassigned = 0;
  for (std::size_t l = 0; l < n && l < header.locations.size(); ++l) {
    const auto& location = header.locations[l];
    if (location.thread != 0 || location.rank < 0 || static_cast<std::size_t>(location.rank) >= defs.ranks.size()) {
      continue;
    }
    for (std::size_t w = 0; w < windows; ++w) {
      for (std::size_t g = 0; g < groups.groups.size(); ++g) at(w, g, l) = 0;
    }
    const auto data = source.rank(static_cast<uint32_t>(location.rank));
    for (const tl::Segment& s : data->trace.segments) {
      const int64_t g = group_of[data->trace.instances[s.instance].region];
      if (g < 0) {
        unassigned += s.end - s.begin;
        continue;
      }
      const auto parent = static_cast<std::size_t>(groups.groups[static_cast<std::size_t>(g)].parent);
      auto w = static_cast<std::size_t>(std::max(0.0, s.begin / width));
      for (; w < windows; ++w) {
        const double lo = std::max(s.begin, static_cast<double>(w) * width);
        const double hi = w + 1 == windows ? s.end : std::min(s.end, static_cast<double>(w + 1) * width);
        if (hi <= lo) break;
        at(w, static_cast<std::size_t>(g), l) += hi - lo;
        at(w, parent, l) += hi - lo;
      }
    }
  }
  nlohmann::json bounds = nlohmann::json::array();
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t w = 0; w < windows; ++w) {
    bounds.push_back({static_cast<double>(w) * width, static_cast<double>(w + 1) * width});
    nlohmann::json per_group = nlohmann::json::array();
    for (std::size_t g = 0; g < groups.groups.size(); ++g) {
      nlohmann::json row = nlohmann::json::array();
      for (std::size_t l = 0; l < n; ++l) row.push_back(std::isnan(at(w, g, l)) ? nlohmann::json(nullptr) : nlohmann::json(at(w, g, l)));
      per_group.push_back(std::move(row));
    }
    out.push_back(std::move(per_group));
  }
  return {{"windows", std::move(bounds)}, {"values", std::move(out)}, {"unassigned", unassigned}};
}

}  // namespace orrery::viewer

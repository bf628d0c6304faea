#include "critical_overlay.h"

#include <algorithm>
#include <utility>

namespace orrery::viewer {

std::map<uint32_t, std::vector<std::vector<std::string>>> critical_path_chains(ReportData& report,
                                                                                 std::size_t per_rank) {
  std::map<uint32_t, std::vector<std::vector<std::string>>> chains;
  const auto& h = report.header();
  const auto metric = std::find_if(h.metrics.begin(), h.metrics.end(),
                                   [](const report::Metric& m) { return m.name == "critical_path"; });
  if (metric == h.metrics.end()) return chains;
  const std::size_t locations = h.locations.size();
  const std::size_t callpaths = h.callpaths.size();
  // Critical-path time per [callpath][location], the metric with its sub-metrics.
  std::vector<double> time(callpaths * locations, 0.0);
  for (const std::size_t m : report.metric_rows({static_cast<std::size_t>(metric - h.metrics.begin()), true})) {
    const auto sums = report.metric(m);
    for (std::size_t i = 0; i < time.size(); ++i) time[i] += sums->exclusive[i];
  }
  const auto chain_of = [&](std::size_t c) {
    std::vector<std::string> chain;
    for (auto row = static_cast<int32_t>(c); row >= 0; row = h.callpaths[static_cast<std::size_t>(row)].parent) {
      chain.push_back(h.regions[static_cast<std::size_t>(h.callpaths[static_cast<std::size_t>(row)].region)].name);
    }
    std::reverse(chain.begin(), chain.end());
    return chain;
  };
  for (std::size_t l = 0; l < locations; ++l) {
    if (h.locations[l].thread != 0) continue;
    std::vector<std::pair<double, std::size_t>> on_path;
    for (std::size_t c = 0; c < callpaths; ++c) {
      // A root stands for the whole program: its one instance would outline the whole row.
      if (h.callpaths[c].parent >= 0 && time[c * locations + l] > 0) on_path.emplace_back(time[c * locations + l], c);
    }
    std::sort(on_path.begin(), on_path.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    if (on_path.size() > per_rank) on_path.resize(per_rank);
    auto& rank_chains = chains[static_cast<uint32_t>(h.locations[l].rank)];
    for (const auto& entry : on_path) rank_chains.push_back(chain_of(entry.second));
  }
  return chains;
}

}  // namespace orrery::viewer

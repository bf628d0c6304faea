#include "callpath_match.h"

#include <algorithm>

namespace orrery::viewer {

namespace tl = analyzer::timeline;

bool CallpathMatch::any() const {
  return std::find(exact.begin(), exact.end(), uint8_t{1}) != exact.end();
}

std::vector<std::string> trace_chain(const tl::Definitions& definitions, std::vector<std::string> chain) {
  if (chain.size() < 2) return chain;
  const bool known = std::any_of(definitions.regions.begin(), definitions.regions.end(),
                                 [&chain](const tl::Region& r) { return r.name == chain.front(); });
  if (!known) chain.erase(chain.begin());
  return chain;
}

CallpathMatch match_callpath(const tl::Definitions& definitions, const tl::RankTimeline& trace,
                             const std::vector<std::string>& chain) {
  const auto& instances = trace.instances;
  CallpathMatch out;
  out.exact.assign(instances.size(), 0);
  out.in_subtree.assign(instances.size(), 0);
  if (chain.empty()) return out;
  // Per region, whether its name is the chain's name at a depth (compared once per region).
  std::vector<std::vector<uint8_t>> name_at(chain.size(), std::vector<uint8_t>(definitions.regions.size(), 0));
  for (std::size_t d = 0; d < chain.size(); ++d) {
    for (std::size_t r = 0; r < definitions.regions.size(); ++r) {
      name_at[d][r] = definitions.regions[r].name == chain[d] ? 1 : 0;
    }
  }
  // prefix[i]: the instance's chain is a prefix of the call path's (parents come first).
  std::vector<uint8_t> prefix(instances.size(), 0);
  for (std::size_t i = 0; i < instances.size(); ++i) {
    const tl::Instance& instance = instances[i];
    const bool parent_in = instance.parent != tl::kNoInstance && out.in_subtree[instance.parent] != 0;
    const std::size_t depth = instance.depth;
    if (depth < chain.size() && instance.region < definitions.regions.size() &&
        name_at[depth][instance.region] != 0 &&
        (depth == 0 ? instance.parent == tl::kNoInstance : prefix[instance.parent] != 0)) {
      prefix[i] = 1;
      if (depth + 1 == chain.size()) out.exact[i] = 1;
    }
    out.in_subtree[i] = (out.exact[i] != 0 || parent_in) ? 1 : 0;
  }
  return out;
}

}  // namespace orrery::viewer

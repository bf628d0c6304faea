#include "resource_samples.h"

#include <algorithm>
#include <vector>

namespace orrery::viewer {
namespace {

namespace tl = analyzer::timeline;
using nlohmann::json;

json sample_json(const tl::Sample& sample) {
  json row = json::array({sample.time});
  for (const uint64_t value : sample.values) row.push_back(value);
  return row;
}

}  // namespace

json resource_samples(TimelineSource& source, double t0, double t1, uint32_t first_rank, uint32_t ranks,
                      std::size_t points) {
  const auto& defs = source.definitions();
  json members = json::array();
  for (const auto& [name, unit] : tl::kSampleMembers) members.push_back({{"name", name}, {"unit", unit}});
  json rows = json::array();
  bool sampled = false;
  const auto end_rank = static_cast<uint32_t>(std::min<std::size_t>(defs.ranks.size(), std::size_t{first_rank} + ranks));
  for (uint32_t rank = first_rank; rank < end_rank; ++rank) {
    const auto data = source.rank(rank);
    const auto& samples = data->trace.samples;
    sampled = sampled || !samples.empty();
    // [first, last): the window's samples plus one on each side.
    auto first = std::lower_bound(samples.begin(), samples.end(), t0,
                                  [](const tl::Sample& s, double t) { return s.time < t; });
    auto last = std::upper_bound(samples.begin(), samples.end(), t1,
                                 [](double t, const tl::Sample& s) { return t < s.time; });
    if (first != samples.begin()) --first;
    if (last != samples.end()) ++last;
    const auto count = static_cast<std::size_t>(last - first);
    json list = json::array();
    if (count <= points || points < 2) {
      for (auto it = first; it != last; ++it) list.push_back(sample_json(*it));
    } else {
      // Evenly spaced indices from the first to the last sample.
      for (std::size_t k = 0; k < points; ++k) {
        list.push_back(sample_json(*(first + static_cast<std::ptrdiff_t>(k * (count - 1) / (points - 1)))));
      }
    }
    rows.push_back({{"rank", rank}, {"count", count}, {"samples", std::move(list)}});
  }
  json answer = {{"members", std::move(members)}, {"ranks", std::move(rows)}, {"t0", t0}, {"t1", t1}};
  // Only the requested ranks were looked at: a run samples all ranks or none.
  answer["sampled"] = sampled;
  if (!sampled) {
    answer["reason"] = "This run recorded no resource samples: measure it with orrery run --sampling-interval MS "
                       "(trace mode) to see memory, CPU time, page faults and context switches over time.";
  }
  return answer;
}

}  // namespace orrery::viewer

#include "trace_views.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <map>
#include <utility>

#include "callpath_match.h"

namespace orrery::viewer {
namespace {

namespace tl = analyzer::timeline;
constexpr std::size_t kKinds = 3;
constexpr std::array<const char*, kKinds> kKindNames{"compute", "mpi", "measurement"};

}  // namespace

nlohmann::json utilization(TimelineSource& source, double t0, double t1, std::size_t bins) {
  const auto& defs = source.definitions();
  const auto rank_count = static_cast<uint32_t>(defs.ranks.size());
  const double bin = (t1 - t0) / static_cast<double>(bins);
  std::array<std::vector<double>, kKinds> time;  // per kind and bin: rank-seconds
  for (auto& t : time) t.assign(bins, 0.0);
  // Transitions for the concurrency profile: (time, kind, +1 / -1).
  std::vector<std::tuple<double, std::size_t, int>> steps;
  for (uint32_t r = 0; r < rank_count; ++r) {
    const auto data = source.rank(r);
    const auto& trace = data->trace;
    auto first = std::lower_bound(trace.segments.begin(), trace.segments.end(), t0,
                                  [](const tl::Segment& s, double t) { return s.end <= t; });
    std::size_t open_kind = kKinds;  // the kind of the rank's current run of segments
    double open_since = 0;
    double last_end = t0;
    auto close_run = [&](double at) {
      if (open_kind == kKinds) return;
      steps.emplace_back(open_since, open_kind, +1);
      steps.emplace_back(at, open_kind, -1);
      open_kind = kKinds;
    };
    for (auto it = first; it != trace.segments.end() && it->begin < t1; ++it) {
      const double b = std::max(it->begin, t0);
      const double e = std::min(it->end, t1);
      if (e <= b) continue;
      const auto kind = static_cast<std::size_t>(defs.regions.at(trace.instances[it->instance].region).kind);
      if (kind != open_kind || b > last_end) {
        close_run(last_end);
        open_kind = kind;
        open_since = b;
      }
      last_end = e;
      // Spread [b, e) over the bins it covers.
      auto k = static_cast<std::size_t>(std::clamp((b - t0) / bin, 0.0, static_cast<double>(bins - 1)));
      for (double from = b; from < e && k < bins; ++k) {
        const double to = std::min(e, t0 + static_cast<double>(k + 1) * bin);
        if (to > from) time.at(kind)[k] += to - from;
        from = to;
      }
    }
    close_run(last_end);
  }
  nlohmann::json out = {{"t0", t0}, {"t1", t1}, {"bins", bins}, {"ranks", rank_count}};
  for (std::size_t kind = 0; kind < kKinds; ++kind) {
    std::vector<double> mean(bins);
    for (std::size_t k = 0; k < bins; ++k) mean[k] = time.at(kind)[k] / bin;
    out["counts"][kKindNames.at(kind)] = std::move(mean);
  }
  // Sweep the transitions in time order: the time spent at each level k.
  std::sort(steps.begin(), steps.end());
  std::array<std::vector<double>, kKinds> at_level;
  for (auto& level : at_level) level.assign(std::size_t{rank_count} + 1, 0.0);
  std::array<int, kKinds> level{};
  double now = t0;
  for (const auto& [t, kind, delta] : steps) {
    if (t > now) {
      for (std::size_t k = 0; k < kKinds; ++k) at_level.at(k)[static_cast<std::size_t>(level.at(k))] += t - now;
      now = t;
    }
    level.at(kind) += delta;
  }
  if (t1 > now) {
    for (std::size_t k = 0; k < kKinds; ++k) at_level.at(k)[static_cast<std::size_t>(level.at(k))] += t1 - now;
  }
  for (std::size_t kind = 0; kind < kKinds; ++kind) out["concurrency"][kKindNames.at(kind)] = at_level.at(kind);
  return out;
}

nlohmann::json communication(TimelineSource& source, double t0, double t1,
                             const std::vector<std::string>& chain) {
  const auto& defs = source.definitions();
  const auto rank_count = static_cast<uint32_t>(defs.ranks.size());
  struct Cell {
    uint64_t bytes = 0;
    uint64_t messages = 0;
    double late_sender = 0;
  };
  std::map<std::pair<uint32_t, uint32_t>, Cell> cells;
  std::map<unsigned, std::pair<uint64_t, uint64_t>> sizes;  // bit width -> messages, bytes
  for (uint32_t r = 0; r < rank_count; ++r) {
    const auto data = source.rank(r);
    const auto& trace = data->trace;
    CallpathMatch match;
    if (!chain.empty()) match = match_callpath(defs, trace, chain);
    const auto inside = [&](uint32_t instance) {
      return chain.empty() || (instance != tl::kNoInstance && match.in_subtree[instance] != 0);
    };
    for (const auto& send : trace.sends) {
      if (send.time < t0 || send.time > t1 || !inside(send.instance)) continue;
      Cell& cell = cells[{r, send.peer}];
      cell.bytes += send.bytes;
      ++cell.messages;
      auto& size = sizes[static_cast<unsigned>(std::bit_width(send.bytes))];
      ++size.first;
      size.second += send.bytes;
    }
    for (const CallWait& call : source.call_waits(r)) {
      if (call.wait() <= 0 || call.enter < t0 || call.enter > t1 || !inside(call.instance)) continue;
      cells[{call.sender, r}].late_sender += call.wait();
    }
  }
  nlohmann::json list = nlohmann::json::array();
  for (const auto& [key, cell] : cells) {
    list.push_back({key.first, key.second, cell.bytes, cell.messages, cell.late_sender});
  }
  // Bin w holds sizes in [2^(w-1), 2^w) (w = 0: empty messages).
  nlohmann::json histogram = nlohmann::json::array();
  for (const auto& [width, size] : sizes) {
    const uint64_t low = width == 0 ? 0 : uint64_t{1} << (width - 1);
    const uint64_t high = width == 0 ? 0 : (uint64_t{1} << (width - 1)) * 2 - 1;
    histogram.push_back({{"low", low}, {"high", high}, {"messages", size.first}, {"bytes", size.second}});
  }
  return {{"t0", t0}, {"t1", t1}, {"ranks", rank_count},
          {"cells", std::move(list)}, {"sizes", std::move(histogram)}};
}

}  // namespace orrery::viewer

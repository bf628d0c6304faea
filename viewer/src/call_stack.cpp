#include "call_stack.h"

#include <algorithm>
#include <map>
#include <vector>

namespace orrery::viewer {
namespace {

namespace tl = analyzer::timeline;
using nlohmann::json;

/// The piece a level is building: one instance, or instances merged below a pixel.
struct Piece {
  double begin = 0;
  double end = 0;
  double busy = 0;
  uint32_t instance = tl::kNoInstance;  ///< the first instance (the only one if pieces == 1)
  std::size_t pieces = 0;
  bool narrow = false;  ///< narrower than a pixel: later narrow instances may join it
  std::map<uint32_t, double> region_time;  ///< merged pieces: time per region

  [[nodiscard]] json to_json() const {
    uint32_t region = 0;
    double most = -1;
    for (const auto& [r, t] : region_time) {
      if (t > most) {
        most = t;
        region = r;
      }
    }
    const int64_t index = pieces == 1 ? static_cast<int64_t>(instance) : -1;
    return json::array({begin, end, region, index, busy, pieces});
  }
};

}  // namespace

json call_stack(TimelineSource& source, uint32_t rank, double t0, double t1, uint32_t width,
                std::size_t max_depth) {
  const auto data = source.rank(rank);
  const auto& instances = data->trace.instances;
  const double pixel = (t1 - t0) / static_cast<double>(std::max<uint32_t>(width, 1));
  std::vector<json> levels;
  std::vector<Piece> open;  // per level: the piece being built (pieces == 0: none)
  std::size_t deepest = 0;
  const auto flush = [&levels](std::size_t level, Piece& piece) {
    if (piece.pieces == 0) return;
    levels[level].push_back(piece.to_json());
    piece = Piece{};
  };
  for (uint32_t i = 0; i < instances.size(); ++i) {
    const tl::Instance& instance = instances[i];
    if (instance.end < t0 || instance.begin > t1 || instance.depth >= max_depth) continue;
    const std::size_t level = instance.depth;
    if (level >= levels.size()) {
      levels.resize(level + 1, json::array());
      open.resize(level + 1);
    }
    deepest = std::max(deepest, level + 1);
    const double begin = std::max(instance.begin, t0);
    const double end = std::min(instance.end, t1);
    Piece& piece = open[level];
    const bool narrow = end - begin < pixel;
    // A narrow instance joins a merged piece that ends less than a pixel before it.
    if (narrow && piece.pieces > 0 && piece.narrow && begin - piece.end < pixel) {
      piece.end = std::max(piece.end, end);
      piece.busy += end - begin;
      piece.region_time[instance.region] += end - begin;
      ++piece.pieces;
      continue;
    }
    flush(level, piece);
    piece.begin = begin;
    piece.end = end;  // exact; the page draws at least a pixel
    piece.busy = end - begin;
    piece.pieces = 1;
    piece.instance = i;
    piece.narrow = narrow;
    piece.region_time[instance.region] = end - begin;
  }
  for (std::size_t level = 0; level < open.size(); ++level) flush(level, open[level]);
  return {{"rank", rank}, {"t0", t0}, {"t1", t1}, {"depth", deepest}, {"levels", levels}};
}

}  // namespace orrery::viewer

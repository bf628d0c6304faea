// Views from the timeline summary (timeline_summary_view.h).

#include "timeline_summary_view.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "orrery/trace/timeline_stream.h"

namespace orrery::viewer {
namespace {

namespace tl = analyzer::timeline;

double ns(double seconds) { return std::round(seconds * 1e9) / 1e9; }

/// What one pixel gathers from the bins across it.
struct Pixel {
  std::array<double, kKinds> time{};
  std::array<double, kKinds> best{};  ///< the largest share of a bin in the kind so far
  std::array<uint32_t, kKinds> region{kNoRegion, kNoRegion, kNoRegion};
  double wait = 0;
  uint32_t pieces = 0;
  uint32_t waits = 0;
};

/// Reads a rank's events from a checkpoint into instances until past `until`.
class WindowReader final : public tl::EventVisitor {
 public:
  WindowReader(const tl::Definitions& defs, WindowEvents& out, int64_t until, uint32_t first_instance)
      : defs_(defs), out_(out), until_(until), next_(first_instance) {}

  void open(const SummaryOpen& o) { push(o.enter, o.region, o.instance); }
  void enter(uint64_t /*position*/, int64_t ticks, uint32_t region) override {
    seen(ticks);
    push(ticks, region, next_++);
  }
  void leave(uint64_t /*position*/, int64_t ticks) override {
    seen(ticks);
    if (stack_.empty()) return;
    out_.trace.instances[stack_.back()].end = tl::seconds(defs_, ticks);
    stack_.pop_back();
  }
  void message(uint64_t /*position*/, int64_t ticks, bool /*send*/, uint32_t /*comm*/, uint32_t /*peer*/,
               uint32_t /*tag*/, uint64_t /*bytes*/) override {
    seen(ticks);
  }
  [[nodiscard]] bool done() const override { return last_ > until_; }

  /// Regions still open end at the window's end.
  void finish(double t1) {
    for (const uint32_t i : stack_) out_.trace.instances[i].end = std::max(out_.trace.instances[i].begin, t1);
  }

 private:
  void seen(int64_t ticks) {
    last_ = ticks;
    ++out_.events;
  }
  void push(int64_t ticks, uint32_t region, uint32_t id) {
    tl::Instance instance;
    instance.begin = tl::seconds(defs_, ticks);
    instance.end = instance.begin;
    instance.region = region;
    instance.parent = stack_.empty() ? tl::kNoInstance : stack_.back();
    instance.depth = static_cast<uint32_t>(stack_.size());
    stack_.push_back(static_cast<uint32_t>(out_.trace.instances.size()));
    out_.trace.instances.push_back(instance);
    out_.instance_ids.push_back(id);
  }

  const tl::Definitions& defs_;
  WindowEvents& out_;
  int64_t until_;
  uint32_t next_;
  int64_t last_ = INT64_MIN;
  std::vector<uint32_t> stack_;
};

}  // namespace

std::optional<uint32_t> summary_level(const TimelineSummary& summary, double pixel) {
  std::optional<uint32_t> level;
  for (uint32_t l = 0; l < summary.header().levels && summary.bin_seconds(l) <= pixel; ++l) level = l;
  return level;
}

nlohmann::json summary_row(const TimelineSummary& summary, const tl::Definitions& defs, uint32_t rank,
                           uint32_t level, double t0, double t1, uint32_t width) {
  const auto bins = summary.bins(rank, level);
  const double bin = summary.bin_seconds(level);
  const double pixel = (t1 - t0) / width;
  std::vector<Pixel> pixels(width);
  const auto first = static_cast<std::size_t>(std::max(0.0, std::floor(t0 / bin)));
  const auto end = std::min(bins.size(), static_cast<std::size_t>(std::max(0.0, std::ceil(t1 / bin))));
  for (std::size_t k = first; k < end; ++k) {
    const SummaryBin& b = bins[k];
    const double lo = static_cast<double>(k) * bin;
    const double hi = k + 1 == bins.size() ? std::max(lo + bin, defs.duration) : lo + bin;
    const double from = std::max(lo, t0);
    const double to = std::min(hi, t1);
    if (to <= from) continue;
    const auto p0 = std::min<std::size_t>(width - 1, static_cast<std::size_t>((from - t0) / pixel));
    pixels[p0].pieces += b.pieces;
    pixels[p0].waits += b.waits;
    for (std::size_t p = p0; p < width; ++p) {
      const double a = std::max(from, t0 + static_cast<double>(p) * pixel);
      const double z = std::min(to, t0 + static_cast<double>(p + 1) * pixel);
      if (z <= a && p > p0) break;
      // The bin's times shared in proportion to the part of it inside this pixel.
      const double share = std::max(0.0, z - a) / (hi - lo) / static_cast<double>(defs.resolution);
      Pixel& px = pixels[p];
      for (std::size_t kind = 0; kind < kKinds; ++kind) {
        const double t = static_cast<double>(b.time.at(kind)) * share;
        px.time.at(kind) += t;
        if (t > px.best.at(kind) && b.region.at(kind) < defs.regions.size()) {
          px.best.at(kind) = t;
          px.region.at(kind) = b.region.at(kind);
        }
      }
      px.wait += static_cast<double>(b.wait) * share;
    }
  }
  nlohmann::json spans = nlohmann::json::array();
  nlohmann::json waits = nlohmann::json::array();
  for (std::size_t p = 0; p < width; ++p) {
    const Pixel& px = pixels[p];
    const double b = t0 + static_cast<double>(p) * pixel;
    const double e = b + pixel;
    std::array<std::size_t, kKinds> order{0, 1, 2};
    std::sort(order.begin(), order.end(), [&px](std::size_t x, std::size_t y) { return px.time.at(x) > px.time.at(y); });
    nlohmann::json parts = nlohmann::json::array();
    double busy = 0;
    for (const std::size_t kind : order) {
      if (px.time.at(kind) <= 0 || px.region.at(kind) == kNoRegion) continue;
      parts.push_back({px.region.at(kind), ns(px.time.at(kind))});
      busy += px.time.at(kind);
    }
    if (!parts.empty()) {
      const uint32_t region = parts.front()[0].get<uint32_t>();
      spans.push_back({ns(b), ns(e), region, -1, ns(busy), std::max<uint32_t>(px.pieces, 1), std::move(parts)});
    }
    if (px.wait > 0) waits.push_back({ns(b), ns(e), ns(px.wait), std::max<uint32_t>(px.waits, 1)});
  }
  return {{"rank", rank}, {"spans", std::move(spans)}, {"waits", std::move(waits)}};
}

WindowEvents read_window(const TimelineSummary& summary, const tl::Definitions& defs, uint32_t rank, double t0,
                         double t1) {
  const auto resolution = static_cast<double>(defs.resolution);
  const auto from = static_cast<int64_t>(std::floor(t0 * resolution));
  const auto until = static_cast<int64_t>(std::ceil(t1 * resolution));
  WindowEvents out;
  out.trace.rank = rank;
  const auto checkpoints = summary.checkpoints(rank);
  // The last checkpoint at or before t0 (its event and all after it are at or after its time).
  auto it = std::upper_bound(checkpoints.begin(), checkpoints.end(), from,
                             [](int64_t t, const SummaryCheckpoint& c) { return t < c.ticks; });
  if (it != checkpoints.begin()) --it;
  const bool from_start = it == checkpoints.begin() || checkpoints.empty();
  WindowReader reader(defs, out, until, from_start ? 0 : it->instances);
  if (!from_start) {
    const auto opens = summary.opens(rank).subspan(it->first_open, it->depth);
    for (const SummaryOpen& o : opens) reader.open(o);
  }
  tl::stream_rank(defs, rank, reader, from_start ? 0 : it->position);
  reader.finish(t1);
  out.trace.segments = tl::flatten(out.trace.instances);
  // The waits overlapping the window (they do not overlap each other, so their ends are in order too).
  const auto waits = summary.waits(rank);
  auto w = std::upper_bound(waits.begin(), waits.end(), from, [](int64_t t, const SummaryWait& x) { return t < x.end; });
  for (; w != waits.end() && w->enter < until; ++w) {
    CallWait call;
    call.instance = w->instance;
    call.enter = tl::seconds(defs, w->enter);
    call.exit = tl::seconds(defs, w->end);
    call.wait_end = call.exit;
    call.sender = w->sender;
    out.waits.push_back(call);
  }
  return out;
}

}  // namespace orrery::viewer

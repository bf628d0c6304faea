// Building the timeline summary (timeline_summary.h) in two streaming passes
// over each rank: first every send call's enter time per (communicator,
// receiver, tag), in order; then per rank its exclusive segments into base
// bins, its receiving calls' late-sender waits (the k-th receive from a peer
// matches the peer's k-th send to it; a call completing several receives
// waits for its latest sender: docs/design.md §4), and checkpoints.

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <tuple>

#include "orrery/trace/timeline_stream.h"
#include "timeline_summary.h"

namespace orrery::viewer {
namespace {

namespace tl = analyzer::timeline;
namespace fs = std::filesystem;

using MessageKey = std::tuple<uint32_t, uint32_t, uint32_t>;  // comm, the other rank, tag
/// Per rank: its send calls' enter ticks per (comm, receiver, tag), in order.
using SendTimes = std::vector<std::map<MessageKey, std::vector<int64_t>>>;

/// Pass 1: a rank's sends, and how many events it has.
class SendCollector final : public tl::EventVisitor {
 public:
  explicit SendCollector(std::map<MessageKey, std::vector<int64_t>>& out) : out_(out) {}
  void enter(uint64_t /*position*/, int64_t ticks, uint32_t /*region*/) override {
    ++events;
    enters_.push_back(ticks);
  }
  void leave(uint64_t /*position*/, int64_t /*ticks*/) override {
    ++events;
    if (!enters_.empty()) enters_.pop_back();
  }
  void message(uint64_t /*position*/, int64_t ticks, bool send, uint32_t comm, uint32_t peer, uint32_t tag,
               uint64_t /*bytes*/) override {
    ++events;
    if (send) out_[{comm, peer, tag}].push_back(enters_.empty() ? ticks : enters_.back());
  }
  uint64_t events = 0;

 private:
  std::map<MessageKey, std::vector<int64_t>>& out_;
  std::vector<int64_t> enters_;
};

/// Pass 2: one rank's bins, waits and checkpoints.
class RankBinner final : public tl::EventVisitor {
 public:
  RankBinner(const tl::Definitions& defs, const SendTimes& sends, uint32_t rank, uint64_t base_ticks,
             uint64_t base_bins)
      : bins(base_bins), defs_(defs), sends_(sends), rank_(rank), base_(base_ticks) {}

  void enter(uint64_t position, int64_t ticks, uint32_t region) override {
    event(position, ticks);
    open_.push_back({ticks, instances_++, region});
  }
  void leave(uint64_t position, int64_t ticks) override {
    event(position, ticks);
    if (open_.empty()) return;
    if (call_.active && call_.instance == open_.back().instance) close_call(ticks);
    open_.pop_back();
  }
  void message(uint64_t position, int64_t ticks, bool send, uint32_t comm, uint32_t peer, uint32_t tag,
               uint64_t /*bytes*/) override {
    event(position, ticks);
    if (send) return;
    const uint32_t ordinal = received_[{comm, peer, tag}]++;
    if (open_.empty()) return;  // a receive outside any call cannot wait
    const SummaryOpen& call = open_.back();
    if (!call_.active || call_.instance != call.instance) call_ = {true, call.instance, call.enter, INT64_MIN, 0};
    if (peer >= sends_.size()) return;
    const auto& peer_sends = sends_[peer];
    const auto it = peer_sends.find({comm, rank_, tag});
    if (it == peer_sends.end() || ordinal >= it->second.size()) return;
    if (it->second[ordinal] > call_.latest) {
      call_.latest = it->second[ordinal];
      call_.sender = peer;
    }
  }

  /// The last open bin's dominant regions.
  void finish() { settle(); }

  std::vector<SummaryBin> bins;
  std::vector<SummaryWait> waits;
  std::vector<SummaryCheckpoint> checkpoints;
  std::vector<SummaryOpen> opens;
  uint64_t events = 0;  ///< the last event's position: the rank's events of every kind

 private:
  struct Call {
    bool active = false;
    uint32_t instance = 0;
    int64_t enter = 0;
    int64_t latest = INT64_MIN;
    uint32_t sender = 0;
  };

  /// Every event: a checkpoint every kCheckpointEvery events, then the
  /// innermost open region's time up to this event.
  void event(uint64_t position, int64_t ticks) {
    events = std::max(events, position);  // OTF2 numbers every event, those not visited too
    if (visited_++ % kCheckpointEvery == 0) {
      checkpoints.push_back({ticks, position, instances_, static_cast<uint32_t>(opens.size()),
                             static_cast<uint32_t>(open_.size()), 0});
      opens.insert(opens.end(), open_.begin(), open_.end());
    }
    if (!open_.empty() && ticks > cursor_) add_segment(cursor_, ticks, open_.back().region);
    cursor_ = std::max(cursor_, ticks);
  }

  [[nodiscard]] uint64_t bin_of(int64_t ticks) const {
    const uint64_t b = ticks <= 0 ? 0 : static_cast<uint64_t>(ticks) / base_;
    return std::min<uint64_t>(b, bins.size() - 1);
  }

  /// The innermost region `region` from `b` to `e`, split at bin edges.
  void add_segment(int64_t b, int64_t e, uint32_t region) {
    const std::size_t kind = region < defs_.regions.size() ? static_cast<std::size_t>(defs_.regions[region].kind) : 0;
    const uint64_t first = bin_of(b);
    const uint64_t last = bin_of(e - 1);
    ++bins[first].pieces;
    for (uint64_t k = first; k <= last; ++k) {
      const auto lo = std::max<int64_t>(b, static_cast<int64_t>(k * base_));
      const auto hi = k == bins.size() - 1 ? e : std::min<int64_t>(e, static_cast<int64_t>((k + 1) * base_));
      if (hi <= lo) continue;
      if (k != current_) {
        settle();
        current_ = k;
      }
      const auto t = static_cast<uint64_t>(hi - lo);
      bins[k].time.at(kind) += t;
      auto found = std::find_if(regions_.begin(), regions_.end(), [region](const auto& r) { return r.first == region; });
      if (found == regions_.end()) regions_.emplace_back(region, t);
      else found->second += t;
    }
  }

  /// The bin being filled is done: per kind, its region with most time.
  void settle() {
    if (current_ == kNone) return;
    SummaryBin& bin = bins[current_];
    std::array<uint64_t, kKinds> best{};
    for (const auto& [region, t] : regions_) {
      const auto kind = static_cast<std::size_t>(defs_.regions[region].kind);
      if (t > best.at(kind)) {
        best.at(kind) = t;
        bin.region.at(kind) = region;
      }
    }
    regions_.clear();
    current_ = kNone;
  }

  /// The receiving call ends at `exit`: its wait, if its latest sender entered the send later than it.
  void close_call(int64_t exit) {
    call_.active = false;
    if (call_.latest == INT64_MIN) return;
    const int64_t end = std::max(call_.enter, std::min(call_.latest, exit));
    if (end <= call_.enter) return;
    waits.push_back({call_.enter, end, call_.sender, call_.instance});
    ++bins[bin_of(call_.enter)].waits;
    for (uint64_t k = bin_of(call_.enter); k <= bin_of(end - 1); ++k) {
      const auto lo = std::max<int64_t>(call_.enter, static_cast<int64_t>(k * base_));
      const auto hi = k == bins.size() - 1 ? end : std::min<int64_t>(end, static_cast<int64_t>((k + 1) * base_));
      if (hi > lo) bins[k].wait += static_cast<uint64_t>(hi - lo);
    }
  }

  static constexpr uint64_t kNone = UINT64_MAX;
  const tl::Definitions& defs_;
  const SendTimes& sends_;
  uint32_t rank_;
  uint64_t base_;
  std::vector<SummaryOpen> open_;
  std::map<MessageKey, uint32_t> received_;
  std::vector<std::pair<uint32_t, uint64_t>> regions_;  ///< region -> time in the bin being filled
  uint64_t current_ = kNone;
  int64_t cursor_ = INT64_MIN;
  uint32_t instances_ = 0;
  uint64_t visited_ = 0;
  Call call_;
};

/// Level l+1 from level l: sums, and per kind the region of the child with most of its time.
std::vector<SummaryBin> coarser(const std::vector<SummaryBin>& fine) {
  std::vector<SummaryBin> out((fine.size() + kLevelFactor - 1) / kLevelFactor);
  for (std::size_t j = 0; j < out.size(); ++j) {
    SummaryBin& to = out[j];
    std::array<uint64_t, kKinds> best{};
    for (std::size_t i = j * kLevelFactor; i < std::min(fine.size(), (j + 1) * kLevelFactor); ++i) {
      const SummaryBin& from = fine[i];
      for (std::size_t k = 0; k < kKinds; ++k) {
        to.time.at(k) += from.time.at(k);
        if (from.region.at(k) != kNoRegion && from.time.at(k) > best.at(k)) {
          best.at(k) = from.time.at(k);
          to.region.at(k) = from.region.at(k);
        }
      }
      to.wait += from.wait;
      to.pieces += from.pieces;
      to.waits += from.waits;
    }
  }
  return out;
}

template <class T>
void write_all(std::ofstream& out, const std::vector<T>& items) {
  out.write(reinterpret_cast<const char*>(items.data()), static_cast<std::streamsize>(items.size() * sizeof(T)));
}

}  // namespace

void build_summary(const tl::Definitions& defs, const std::string& path) {
  const auto ranks = static_cast<uint32_t>(defs.ranks.size());
  SendTimes sends(ranks);
  uint64_t most_events = 0;
  for (uint32_t r = 0; r < ranks; ++r) {
    SendCollector collector(sends[r]);
    tl::stream_rank(defs, r, collector);
    most_events = std::max(most_events, collector.events);
  }
  // Base bins: a power of two, at least 4,096 (a whole run at up to 4,096 px
  // is drawn from bins), more until they hold at most 16 events each on the
  // busiest rank; at most kMaxBaseBins, and kMaxTotalBaseBins over all ranks.
  const uint64_t total_cap = kMaxTotalBaseBins / std::max<uint64_t>(ranks, 1);
  uint64_t base_bins = 64;
  while (base_bins < kMaxBaseBins && 2 * base_bins <= total_cap && (base_bins < 4096 || base_bins * 16 < most_events)) {
    base_bins *= 2;
  }
  const auto duration = static_cast<int64_t>(defs.duration * static_cast<double>(defs.resolution) + 0.5);
  const uint64_t base_ticks = std::max<uint64_t>(1, (static_cast<uint64_t>(std::max<int64_t>(duration, 1)) + base_bins - 1) / base_bins);
  uint32_t levels = 1;
  while (bins_at_level(base_bins, levels - 1) > 16) ++levels;

  SummaryHeader header;
  header.magic = kSummaryMagic;
  header.version = kSummaryVersion;
  header.header_bytes = sizeof(SummaryHeader);
  header.fingerprint = summary_fingerprint(defs);
  header.resolution = defs.resolution;
  header.duration = duration;
  header.base_ticks = base_ticks;
  header.ranks = ranks;
  header.regions = static_cast<uint32_t>(defs.regions.size());
  header.base_bins = static_cast<uint32_t>(base_bins);
  header.levels = levels;
  header.factor = kLevelFactor;
  header.checkpoint_every = kCheckpointEvery;

  const std::string temporary = path + ".tmp." + std::to_string(::getpid());
  std::vector<SummaryRankTable> table(ranks);
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError("cannot write the timeline summary " + temporary);
    out.write(reinterpret_cast<const char*>(&header), sizeof(header));
    write_all(out, table);  // placeholder, rewritten below
    for (uint32_t r = 0; r < ranks; ++r) {
      RankBinner binner(defs, sends, r, base_ticks, base_bins);
      tl::stream_rank(defs, r, binner);
      binner.finish();
      SummaryRankTable& t = table[r];
      t.events = binner.events;
      header.events += binner.events;
      t.bins = static_cast<uint64_t>(out.tellp());
      std::vector<SummaryBin> level = std::move(binner.bins);
      for (uint32_t l = 0; l < levels; ++l) {
        write_all(out, level);
        if (l + 1 < levels) level = coarser(level);
      }
      t.waits = static_cast<uint64_t>(out.tellp());
      t.wait_count = binner.waits.size();
      write_all(out, binner.waits);
      t.checkpoints = static_cast<uint64_t>(out.tellp());
      t.checkpoint_count = binner.checkpoints.size();
      write_all(out, binner.checkpoints);
      t.opens = static_cast<uint64_t>(out.tellp());
      t.open_count = binner.opens.size();
      write_all(out, binner.opens);
    }
    header.file_bytes = static_cast<uint64_t>(out.tellp()) + 8;
    out.seekp(0);
    out.write(reinterpret_cast<const char*>(&header), sizeof(header));
    write_all(out, table);
    if (!out) throw InputError("cannot write the timeline summary " + temporary + " (disk full?)");
  }
  // The checksum of all that was written, appended.
  const uint64_t checksum = summary_file_checksum(temporary, header.file_bytes - 8);
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::app);
    out.write(reinterpret_cast<const char*>(&checksum), sizeof(checksum));
    if (!out) throw InputError("cannot write the timeline summary " + temporary);
  }
  std::error_code error;
  fs::rename(temporary, path, error);
  if (error) {
    fs::remove(temporary, error);
    throw InputError("cannot write the timeline summary " + path);
  }
}

}  // namespace orrery::viewer

#pragma once
// The timeline's multi-resolution summary: per rank, a pyramid of time bins
// (a base bin of a fixed number of ticks, each level 4x coarser) holding the
// exact time per activity class (computation, MPI, measurement, late-sender
// waiting) and each class's dominant region; the late-sender waits one by
// one; and checkpoints into the events (OTF2 position, open regions) every
// kCheckpointEvery events. Built once from the trace in two streaming passes,
// stored beside it (EXP/orrery-timeline.summary, docs/viewer.md "Timeline
// summary") and memory-mapped: a view of any window reads only the bins it
// needs, or, when a pixel is finer than a base bin, the window's events from
// the nearest checkpoint.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "orrery/trace/timeline.h"
#include "orrery/error.h"

namespace orrery::viewer {

constexpr uint32_t kNoRegion = 0xFFFFFFFFu;
/// The activity classes of a bin: the region kinds (timeline.h), then waiting.
constexpr std::size_t kKinds = 3;

/// One bin of one rank's time; all times in the trace's ticks, exact.
struct SummaryBin {
  std::array<uint64_t, kKinds> time{};  ///< innermost-region time per kind
  uint64_t wait = 0;                    ///< late-sender waiting inside the bin
  std::array<uint32_t, kKinds> region{kNoRegion, kNoRegion, kNoRegion};  ///< per kind, its region with most time
  uint32_t pieces = 0;                  ///< segments starting in the bin
  uint32_t waits = 0;                   ///< waits starting in the bin
  uint32_t reserved = 0;
};
static_assert(sizeof(SummaryBin) == 56);

/// A receiving call's late-sender wait (only positive ones are kept), in enter order.
struct SummaryWait {
  int64_t enter = 0;
  int64_t end = 0;  ///< enter + the wait
  uint32_t sender = 0;
  uint32_t instance = 0;  ///< the call's instance index on its rank
};
static_assert(sizeof(SummaryWait) == 24);

/// A point to resume reading a rank's events: the event at `position` has
/// time `ticks`; before it, `instances` regions were entered, of which
/// opens[first_open, first_open + depth) were still open (outermost first).
struct SummaryCheckpoint {
  int64_t ticks = 0;
  uint64_t position = 0;
  uint32_t instances = 0;
  uint32_t first_open = 0;
  uint32_t depth = 0;
  uint32_t reserved = 0;
};
static_assert(sizeof(SummaryCheckpoint) == 32);

struct SummaryOpen {
  int64_t enter = 0;
  uint32_t instance = 0;
  uint32_t region = 0;
};
static_assert(sizeof(SummaryOpen) == 16);

/// Where a rank's parts are in the file (bytes from its start) and how many.
struct SummaryRankTable {
  uint64_t bins = 0;  ///< level 0's bins, then level 1's, …
  uint64_t waits = 0;
  uint64_t wait_count = 0;
  uint64_t checkpoints = 0;
  uint64_t checkpoint_count = 0;
  uint64_t opens = 0;
  uint64_t open_count = 0;
  uint64_t events = 0;
};

struct SummaryHeader {
  std::array<char, 8> magic{};
  uint32_t version = 0;
  uint32_t header_bytes = 0;
  uint64_t fingerprint = 0;  ///< of the trace's files (summary_fingerprint)
  uint64_t file_bytes = 0;   ///< including the trailing checksum
  uint64_t resolution = 0;
  int64_t duration = 0;      ///< ticks
  uint64_t base_ticks = 0;   ///< a level-0 bin
  uint64_t events = 0;
  uint32_t ranks = 0;
  uint32_t regions = 0;
  uint32_t base_bins = 0;
  uint32_t levels = 0;
  uint32_t factor = 0;
  uint32_t checkpoint_every = 0;
};

constexpr std::array<char, 8> kSummaryMagic{'O', 'R', 'R', 'T', 'L', 'S', 'U', 'M'};
constexpr uint32_t kSummaryVersion = 1;
constexpr uint32_t kLevelFactor = 4;
constexpr uint32_t kCheckpointEvery = 4096;
constexpr uint32_t kMaxBaseBins = 1U << 18U;
/// At most this many base bins over all ranks (56 bytes each, 4/3 of that with the levels).
constexpr uint64_t kMaxTotalBaseBins = uint64_t{1} << 22U;

/// The summary's file name inside the experiment.
inline constexpr const char* kSummaryFile = "orrery-timeline.summary";

/// Bins of level `level` when level 0 has `base` (each level kLevelFactor x coarser, rounded up).
[[nodiscard]] uint64_t bins_at_level(uint64_t base, uint32_t level);

/// A hash of what identifies the trace's files: size, modification time and the
/// contents of traces.otf2 and traces.def, and each rank's event file's size,
/// modification time and first and last 64 KiB.
[[nodiscard]] uint64_t summary_fingerprint(const analyzer::timeline::Definitions& defs);

/// The 64-bit checksum the file ends with (of every byte before it).
[[nodiscard]] uint64_t summary_checksum(const unsigned char* data, std::size_t bytes);

/// summary_checksum of a file's first `bytes` bytes (mapped, not read into memory).
[[nodiscard]] uint64_t summary_file_checksum(const std::string& path, std::size_t bytes);

/// Builds the summary of `defs`' trace into `path` (written to a temporary name,
/// then renamed). Streams each rank twice; holds the send times of all
/// messages (8 bytes each) and one rank's bins, waits and checkpoints.
void build_summary(const analyzer::timeline::Definitions& defs, const std::string& path);

/// A summary file that cannot be used: `stale` (another trace's, or an older
/// format) or damaged (`stale` false: corrupt, truncated, inconsistent).
class SummaryRejected : public InputError {
 public:
  SummaryRejected(const std::string& message, bool stale) : InputError(message), stale_(stale) {}
  [[nodiscard]] bool stale() const { return stale_; }

 private:
  bool stale_;
};

/// A summary file, memory-mapped and checked.
class TimelineSummary {
 public:
  /// Opens `path`; throws SummaryRejected saying why if it is not a summary
  /// of `defs`' trace or is damaged (every size and offset is checked against
  /// the file before use, and the checksum over all of it).
  TimelineSummary(const analyzer::timeline::Definitions& defs, const std::string& path);
  ~TimelineSummary();
  TimelineSummary(const TimelineSummary&) = delete;
  TimelineSummary& operator=(const TimelineSummary&) = delete;
  TimelineSummary(TimelineSummary&&) = delete;
  TimelineSummary& operator=(TimelineSummary&&) = delete;

  [[nodiscard]] const SummaryHeader& header() const { return header_; }
  [[nodiscard]] std::size_t bytes() const { return size_; }
  /// Seconds of a level's bin.
  [[nodiscard]] double bin_seconds(uint32_t level) const;
  [[nodiscard]] std::span<const SummaryBin> bins(uint32_t rank, uint32_t level) const;
  [[nodiscard]] std::span<const SummaryWait> waits(uint32_t rank) const;
  [[nodiscard]] std::span<const SummaryCheckpoint> checkpoints(uint32_t rank) const;
  [[nodiscard]] std::span<const SummaryOpen> opens(uint32_t rank) const;
  [[nodiscard]] uint64_t events(uint32_t rank) const { return table_.at(rank).events; }

 private:
  void check(const analyzer::timeline::Definitions& defs, const std::string& path);
  template <class T>
  [[nodiscard]] std::span<const T> part(uint64_t offset, uint64_t count) const {
    return {reinterpret_cast<const T*>(data_ + offset), static_cast<std::size_t>(count)};
  }

  const unsigned char* data_ = nullptr;
  std::size_t size_ = 0;
  SummaryHeader header_;
  std::vector<SummaryRankTable> table_;
  std::vector<uint64_t> level_first_;  ///< index of each level's first bin within a rank's bins
};


}  // namespace orrery::viewer

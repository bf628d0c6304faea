// The summary file (timeline_summary.h): its fingerprint of the trace, its
// checksum, and opening it: memory-mapped, and every number that says where
// something is checked against the file before anything is read through it.

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "orrery/trace/trace_reader.h"
#include "timeline_summary.h"

namespace orrery::viewer {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t kMix = 0x9E3779B97F4A7C15ULL;

uint64_t mix(uint64_t h, uint64_t word) {
  h ^= word;
  h = (h << 29U) | (h >> 35U);
  return h * kMix;
}

uint64_t hash_bytes(uint64_t h, const char* data, std::size_t n) {
  return summary_checksum(reinterpret_cast<const unsigned char*>(data), n) ^ mix(h, n);
}

/// Size, modification time and (some of) the contents of a file.
uint64_t file_identity(uint64_t h, const fs::path& file, bool whole) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) return mix(h, 0xDEADULL);
  h = mix(h, static_cast<uint64_t>(st.st_size));
  h = mix(h, static_cast<uint64_t>(st.st_mtim.tv_sec) * 1000000000ULL + static_cast<uint64_t>(st.st_mtim.tv_nsec));
  std::ifstream in(file, std::ios::binary);
  constexpr std::size_t kEdge = 64 * 1024;
  const auto size = static_cast<std::size_t>(st.st_size);
  std::vector<char> buffer(whole ? size : std::min(size, kEdge));
  in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
  h = hash_bytes(h, buffer.data(), static_cast<std::size_t>(in.gcount()));
  if (!whole && size > kEdge) {
    in.clear();
    in.seekg(static_cast<std::streamoff>(size - kEdge));
    in.read(buffer.data(), static_cast<std::streamsize>(kEdge));
    h = hash_bytes(h, buffer.data(), static_cast<std::size_t>(in.gcount()));
  }
  return h;
}

}  // namespace

uint64_t bins_at_level(uint64_t base, uint32_t level) {
  uint64_t bins = base;
  for (uint32_t l = 0; l < level; ++l) bins = (bins + kLevelFactor - 1) / kLevelFactor;
  return bins;
}

uint64_t summary_checksum(const unsigned char* data, std::size_t bytes) {
  uint64_t h = 0x243F6A8885A308D3ULL;
  std::size_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    uint64_t word = 0;
    std::memcpy(&word, data + i, 8);
    h = mix(h, word);
  }
  uint64_t tail = 0;
  std::memcpy(&tail, data + i, bytes - i);
  return mix(mix(h, tail), bytes);
}

uint64_t summary_file_checksum(const std::string& path, std::size_t bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw InputError("cannot read " + path);
  void* mapped = bytes == 0 ? nullptr : ::mmap(nullptr, bytes, PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  if (mapped == MAP_FAILED) throw InputError("cannot map " + path);
  const uint64_t sum = summary_checksum(static_cast<const unsigned char*>(mapped), bytes);
  if (mapped != nullptr) ::munmap(mapped, bytes);
  return sum;
}

uint64_t summary_fingerprint(const analyzer::timeline::Definitions& defs) {
  const fs::path anchor = analyzer::anchor_path(defs.experiment);
  const fs::path dir = fs::path(anchor).replace_extension("");
  uint64_t h = file_identity(kMix, anchor, true);
  h = file_identity(h, fs::path(anchor).replace_extension("def"), true);
  for (const auto& rank : defs.ranks) h = file_identity(h, dir / (std::to_string(rank.location) + ".evt"), false);
  return h;
}

TimelineSummary::TimelineSummary(const analyzer::timeline::Definitions& defs, const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw SummaryRejected(path + ": cannot open it", true);
  struct stat st {};
  if (::fstat(fd, &st) != 0 || st.st_size < static_cast<off_t>(sizeof(SummaryHeader) + 8)) {
    ::close(fd);
    throw SummaryRejected(path + ": too short to be a timeline summary", false);
  }
  size_ = static_cast<std::size_t>(st.st_size);
  void* mapped = ::mmap(nullptr, size_, PROT_READ, MAP_SHARED, fd, 0);
  ::close(fd);
  if (mapped == MAP_FAILED) throw SummaryRejected(path + ": cannot map it", false);
  data_ = static_cast<const unsigned char*>(mapped);
  try {
    check(defs, path);
  } catch (...) {
    ::munmap(const_cast<unsigned char*>(data_), size_);
    throw;
  }
}

TimelineSummary::~TimelineSummary() { ::munmap(const_cast<unsigned char*>(data_), size_); }

void TimelineSummary::check(const analyzer::timeline::Definitions& defs, const std::string& path) {
  std::memcpy(&header_, data_, sizeof(header_));
  const auto corrupt = [&path](const std::string& why) { return SummaryRejected(path + ": " + why, false); };
  if (header_.magic != kSummaryMagic) throw corrupt("not a timeline summary (wrong magic)");
  if (header_.version != kSummaryVersion || header_.header_bytes != sizeof(SummaryHeader)) {
    throw SummaryRejected(path + ": format version " + std::to_string(header_.version) + ", this viewer writes " +
                              std::to_string(kSummaryVersion), true);
  }
  if (header_.file_bytes != size_) {
    throw corrupt("says " + std::to_string(header_.file_bytes) + " bytes, has " + std::to_string(size_));
  }
  uint64_t stored = 0;
  std::memcpy(&stored, data_ + size_ - 8, 8);
  if (stored != summary_checksum(data_, size_ - 8)) throw corrupt("checksum mismatch (damaged)");
  if (header_.fingerprint != summary_fingerprint(defs)) {
    throw SummaryRejected(path + ": made from another trace (or the trace changed)", true);
  }
  if (header_.ranks != defs.ranks.size() || header_.regions != defs.regions.size() ||
      header_.resolution != defs.resolution) {
    throw SummaryRejected(path + ": made from a trace with other ranks or regions", true);
  }
  if (header_.base_ticks == 0 || header_.base_bins == 0 || header_.base_bins > kMaxBaseBins ||
      header_.factor != kLevelFactor || header_.levels == 0 || header_.levels > 32 ||
      header_.checkpoint_every == 0) {
    throw corrupt("inconsistent header");
  }
  uint64_t per_rank_bins = 0;
  for (uint32_t l = 0; l < header_.levels; ++l) {
    level_first_.push_back(per_rank_bins);
    per_rank_bins += bins_at_level(header_.base_bins, l);
  }
  const uint64_t table_end = sizeof(SummaryHeader) + uint64_t{header_.ranks} * sizeof(SummaryRankTable);
  const uint64_t payload_end = size_ - 8;
  if (table_end > payload_end) throw corrupt("rank table beyond the end");
  table_.resize(header_.ranks);
  std::memcpy(table_.data(), data_ + sizeof(SummaryHeader), table_.size() * sizeof(SummaryRankTable));
  // Each part within the payload, aligned, its count not overflowing.
  const auto fits = [&](uint64_t offset, uint64_t count, uint64_t size) {
    return offset >= table_end && offset <= payload_end && offset % 8 == 0 && count <= (payload_end - offset) / size;
  };
  for (const SummaryRankTable& t : table_) {
    if (!fits(t.bins, per_rank_bins, sizeof(SummaryBin)) || !fits(t.waits, t.wait_count, sizeof(SummaryWait)) ||
        !fits(t.checkpoints, t.checkpoint_count, sizeof(SummaryCheckpoint)) ||
        !fits(t.opens, t.open_count, sizeof(SummaryOpen))) {
      throw corrupt("a rank's part lies beyond the end");
    }
    for (const SummaryCheckpoint& c : part<SummaryCheckpoint>(t.checkpoints, t.checkpoint_count)) {
      if (c.first_open > t.open_count || c.depth > t.open_count - c.first_open) throw corrupt("bad checkpoint");
    }
  }
}

double TimelineSummary::bin_seconds(uint32_t level) const {
  double ticks = static_cast<double>(header_.base_ticks);
  for (uint32_t l = 0; l < level; ++l) ticks *= kLevelFactor;
  return ticks / static_cast<double>(header_.resolution);
}

std::span<const SummaryBin> TimelineSummary::bins(uint32_t rank, uint32_t level) const {
  const SummaryRankTable& t = table_.at(rank);
  return part<SummaryBin>(t.bins + level_first_.at(level) * sizeof(SummaryBin),
                          bins_at_level(header_.base_bins, level));
}

std::span<const SummaryWait> TimelineSummary::waits(uint32_t rank) const {
  return part<SummaryWait>(table_.at(rank).waits, table_.at(rank).wait_count);
}

std::span<const SummaryCheckpoint> TimelineSummary::checkpoints(uint32_t rank) const {
  return part<SummaryCheckpoint>(table_.at(rank).checkpoints, table_.at(rank).checkpoint_count);
}

std::span<const SummaryOpen> TimelineSummary::opens(uint32_t rank) const {
  return part<SummaryOpen>(table_.at(rank).opens, table_.at(rank).open_count);
}

}  // namespace orrery::viewer

// The merge's values on request (orrery/analyzer/merge.h): rank 0 asks one
// block of ranks at a time for some metric rows of theirs; each answers with
// its non-zero entries as (cube row, location slot, one value per row asked).

#include <algorithm>
#include <cstring>
#include <tuple>

#include "orrery/analyzer/merge.h"
#include "vmpi.h"

namespace orrery::analyzer {
namespace {

// Tags of the requests and their answers (merge.cpp has 0x4f60..0x4f63).
constexpr int kRequestTag = 0x4f64;
constexpr int kAnswerTag = 0x4f65;

/// One slot's values of what was asked, per local call path: [asked][callpath].
std::vector<double> slot_values(const patterns::SeverityMap& map, const std::vector<int32_t>& asked,
                                const std::vector<std::size_t>& time_rows, std::size_t callpaths) {
  std::vector<double> values(asked.size() * callpaths, 0.0);
  for (std::size_t k = 0; k < asked.size(); ++k) {
    double* out = values.data() + k * callpaths;
    const auto add = [&](std::size_t row) {
      if (row >= map.metrics()) return;
      const std::vector<double>& local = map.metric(row);
      for (std::size_t c = 0; c < callpaths && c < local.size(); ++c) out[c] += local[c];
    };
    if (asked[k] == CubeMerge::kTimeSum) {
      for (const std::size_t row : time_rows) add(row);
    } else if (asked[k] >= 0) {
      add(static_cast<std::size_t>(asked[k]));
    }
  }
  return values;
}

/// A rank's answer: per entry one key (row << 32 | slot, bit for bit in a
/// double) and one value per row asked; entries whose values are all 0 left out.
std::vector<double> answer(const LocalValues& mine, const std::vector<uint32_t>& rows,
                           const std::vector<int32_t>& asked) {
  std::vector<double> entries;
  const auto collect = [&](const patterns::SeverityMap& map, uint32_t slot) {
    const std::size_t callpaths = rows.size();
    const std::vector<double> values = slot_values(map, asked, mine.time_rows, callpaths);
    for (std::size_t c = 0; c < callpaths; ++c) {
      bool any = false;
      for (std::size_t k = 0; k < asked.size(); ++k) any = any || values[k * callpaths + c] != 0.0;
      if (!any) continue;
      const uint64_t key = (static_cast<uint64_t>(rows[c]) << 32) | slot;
      double packed = 0;
      std::memcpy(&packed, &key, sizeof key);
      entries.push_back(packed);
      for (std::size_t k = 0; k < asked.size(); ++k) entries.push_back(values[k * callpaths + c]);
    }
  };
  if (mine.severities != nullptr) collect(*mine.severities, 0);
  if (mine.threads != nullptr) {
    for (std::size_t t = 0; t < mine.threads->size(); ++t) {
      collect((*mine.threads)[t], static_cast<uint32_t>(t + 1));
    }
  }
  return entries;
}

}  // namespace

std::vector<std::pair<int, int>> CubeMerge::rank_blocks() const {
  const std::size_t per_block =
      std::max<std::size_t>(1, block_values_ / std::max<std::size_t>(1, header_.callpaths.size()));
  std::vector<std::pair<int, int>> blocks;
  for (int first = 0; first < size_; first += static_cast<int>(per_block)) {
    blocks.emplace_back(first, static_cast<int>(std::min<std::size_t>(
                                   static_cast<std::size_t>(size_), first + per_block)));
  }
  return blocks;
}

std::pair<std::size_t, std::size_t> CubeMerge::block_locations(std::pair<int, int> ranks) const {
  const std::size_t first = first_location_[static_cast<std::size_t>(ranks.first)];
  return {first, first_location_[static_cast<std::size_t>(ranks.second)] - first};
}

ValueBlock CubeMerge::fetch(std::pair<int, int> ranks, const std::vector<int32_t>& asked,
                            const LocalValues& mine) const {
  ValueBlock block;
  std::tie(block.first, block.count) = block_locations(ranks);
  block.callpaths = header_.callpaths.size();
  block.values.assign(asked.size() * block.callpaths * block.count, 0.0);
  if (asked.empty()) return block;  // an empty request would say "done"
  const std::size_t stride = 1 + asked.size();
  const auto put = [&](const std::vector<double>& entries, int rank) {
    const std::size_t first = first_location_[static_cast<std::size_t>(rank)] - block.first;
    const std::size_t slots = first_location_[static_cast<std::size_t>(rank) + 1] -
                              first_location_[static_cast<std::size_t>(rank)];
    for (std::size_t e = 0; e + stride <= entries.size(); e += stride) {
      uint64_t key = 0;
      std::memcpy(&key, &entries[e], sizeof key);
      const auto row = static_cast<std::size_t>(key >> 32);
      const auto slot = static_cast<std::size_t>(key & 0xffffffffU);
      if (row >= block.callpaths || slot >= slots) continue;
      for (std::size_t k = 0; k < asked.size(); ++k) {
        block.of(k)[row * block.count + first + slot] += entries[e + 1 + k];
      }
    }
  };
  std::vector<int32_t> request(asked);
  std::vector<MPI_Request> sent;
  for (int r = std::max(ranks.first, 1); r < ranks.second; ++r) {
    sent.push_back(MPI_REQUEST_NULL);
    vmpi::Isend(request.data(), static_cast<int>(request.size()), MPI_INT32_T, r, kRequestTag,
                world_, &sent.back());
  }
  if (ranks.first == 0) put(answer(mine, rows_, asked), 0);
  for (int r = std::max(ranks.first, 1); r < ranks.second; ++r) {
    MPI_Status status;
    vmpi::Probe(r, kAnswerTag, world_, &status);
    int count = 0;
    MPI_Get_count(&status, MPI_DOUBLE, &count);
    std::vector<double> entries(static_cast<std::size_t>(count));
    vmpi::Recv(entries.data(), count, MPI_DOUBLE, r, kAnswerTag, world_, MPI_STATUS_IGNORE);
    put(entries, r);
  }
  vmpi::Waitall(static_cast<int>(sent.size()), sent.data(), MPI_STATUSES_IGNORE);
  return block;
}

bool CubeMerge::serve_one(const LocalValues& mine) const {
  MPI_Status status;
  vmpi::Probe(0, kRequestTag, world_, &status);
  int count = 0;
  MPI_Get_count(&status, MPI_INT32_T, &count);
  std::vector<int32_t> asked(static_cast<std::size_t>(std::max(count, 0)));
  vmpi::Recv(asked.data(), count, MPI_INT32_T, 0, kRequestTag, world_, MPI_STATUS_IGNORE);
  if (count <= 0) return false;
  const std::vector<double> entries = answer(mine, rows_, asked);
  vmpi::Send(entries.data(), static_cast<int>(entries.size()), MPI_DOUBLE, 0, kAnswerTag, world_);
  return true;
}

void CubeMerge::serve(const LocalValues& mine) const {
  while (serve_one(mine)) {
  }
}

void CubeMerge::done() const {
  std::vector<MPI_Request> sent(static_cast<std::size_t>(std::max(0, size_ - 1)), MPI_REQUEST_NULL);
  for (int r = 1; r < size_; ++r) {
    vmpi::Isend(nullptr, 0, MPI_INT32_T, r, kRequestTag, world_, &sent[static_cast<std::size_t>(r - 1)]);
  }
  vmpi::Waitall(static_cast<int>(sent.size()), sent.data(), MPI_STATUSES_IGNORE);
}

}  // namespace orrery::analyzer

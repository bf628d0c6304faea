#include "orrery/analyzer/incomplete.h"

#include <climits>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

#include "orrery/bounded_read.h"
#include "orrery/error.h"
#include "orrery/run_json.h"
#include "vmpi.h"

namespace orrery::analyzer {
namespace {

namespace fs = std::filesystem;

/// Appends plain values and length-prefixed strings.
class Writer {
 public:
  explicit Writer(std::vector<char>& out) : out_(out) {}
  template <class T>
  void value(T v) {
    const auto* bytes = reinterpret_cast<const char*>(&v);
    out_.insert(out_.end(), bytes, bytes + sizeof v);
  }
  void text(const std::string& s) {
    value(static_cast<uint32_t>(s.size()));
    out_.insert(out_.end(), s.begin(), s.end());
  }

 private:
  std::vector<char>& out_;
};

/// Reads what Writer wrote; a short buffer is an error, not a crash.
class Reader {
 public:
  Reader(const char* data, std::size_t size) : data_(data), size_(size) {}
  template <class T>
  T value() {
    T v{};
    need(sizeof v);
    std::memcpy(&v, data_ + at_, sizeof v);
    at_ += sizeof v;
    return v;
  }
  std::string text() {
    const auto n = value<uint32_t>();
    need(n);
    std::string s(data_ + at_, n);
    at_ += n;
    return s;
  }

 private:
  void need(std::size_t n) const {
    if (n > size_ - at_) throw InputError("corrupt definitions exchanged between analysis ranks");
  }
  const char* data_;
  std::size_t size_;
  std::size_t at_ = 0;
};

using RegionKey = std::tuple<std::string, std::string, int32_t, Paradigm, RegionRole>;

}  // namespace

bool is_incomplete_experiment(const std::string& experiment) {
  if (experiment.ends_with(".otf2")) return false;
  return !fs::exists(fs::path(experiment) / "traces.otf2") &&
         fs::is_directory(fs::path(experiment) / "incomplete");
}

std::string incomplete_archive(const std::string& experiment, uint32_t rank) {
  return (fs::path(experiment) / "incomplete" / ("rank-" + std::to_string(rank))).string();
}

namespace {

/// Whether the archive at `archive` was written to the end: its anchor and
/// non-empty global definitions. A rank killed while writing it (mpirun's
/// SIGKILL after its grace period, on a loaded node) leaves an anchor and an
/// empty traces.def: that rank left no trace.
bool archive_written(const std::string& archive) {
  std::error_code error;
  const fs::path anchor = anchor_path(archive);
  const fs::path definitions = fs::path(anchor).replace_extension(".def");
  return fs::exists(anchor, error) && fs::file_size(definitions, error) > 0 && !error;
}

}  // namespace

bool left_a_trace(const std::string& experiment, uint32_t rank) {
  return archive_written(incomplete_archive(experiment, rank));
}

uint32_t incomplete_world_size(const std::string& experiment) {
  // The lowest rank with an archive: rank-<r> directories, numerically.
  uint32_t lowest = UINT32_MAX;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(fs::path(experiment) / "incomplete", ec)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with("rank-") || !entry.is_directory()) continue;
    const std::string digits = name.substr(5);
    if (digits.empty() || digits.size() > 9 ||
        digits.find_first_not_of("0123456789") != std::string::npos) {
      continue;
    }
    const auto r = static_cast<uint32_t>(std::stoul(digits));
    if (r < lowest && archive_written(entry.path().string())) lowest = r;
  }
  if (lowest == UINT32_MAX) {
    throw InputError("'" + experiment + "' is an incomplete experiment without any rank's trace (" +
                     (fs::path(experiment) / "incomplete" / "rank-<r>" / "traces.otf2").string() +
                     " exists for no rank)");
  }
  const Definitions defs = read_definitions(incomplete_archive(experiment, lowest));
  return static_cast<uint32_t>(defs.ranks.size());
}

void check_incomplete_archives(const std::string& experiment, uint32_t ranks) {
  for (uint32_t r = 0; r < ranks; ++r) {
    const std::string anchor = anchor_path(incomplete_archive(experiment, r));
    if (!left_a_trace(experiment, r)) {
      throw InputError("the incomplete experiment '" + experiment + "' has no trace of rank " +
                       std::to_string(r) + ": " + anchor +
                       " does not exist or is unfinished (a rank killed with SIGKILL writes "
                       "nothing, or stops in the middle); the "
                       "analysis needs every rank's trace");
    }
  }
}

std::vector<uint32_t> ranks_without_trace(const std::string& experiment, uint32_t ranks) {
  std::vector<uint32_t> lost;
  for (uint32_t r = 0; r < ranks; ++r) {
    if (!left_a_trace(experiment, r)) lost.push_back(r);
  }
  return lost;
}

std::string incomplete_reason(const std::string& experiment, uint32_t rank) {
  if (!left_a_trace(experiment, rank)) {
    const auto run = run_json::read(run_json::file_of(experiment));
    const auto signal = run ? run_json::at(*run, {run_json::key::kRankSignalName}) : nullptr;
    if (signal.is_string()) return "killed by " + signal.get<std::string>() + ", no trace";
    return "no trace";
  }
  const auto text =
      read_bounded_text(fs::path(experiment) / "incomplete" / ("rank-" + std::to_string(rank) + ".json"));
  if (!text) return "unknown";
  const nlohmann::json marker = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  const auto reason = run_json::at(marker, {run_json::key::kReason});
  return reason.is_string() ? reason.get<std::string>() : "unknown";
}

std::vector<char> serialize_definitions(const Definitions& local, uint32_t rank) {
  std::vector<char> out;
  Writer w(out);
  w.value(static_cast<uint32_t>(local.ranks.size()));
  const RankDef own = rank < local.ranks.size() ? local.ranks[rank] : RankDef{rank, "", ""};
  w.value(own.location);
  w.text(own.name);
  w.text(own.host);
  w.value(local.timer_resolution);
  w.value(static_cast<uint32_t>(local.regions.size()));
  for (const RegionDef& region : local.regions) {
    w.text(region.name);
    w.text(region.file);
    w.value(region.line);
    w.value(static_cast<uint8_t>(region.paradigm));
    w.value(static_cast<uint8_t>(region.role));
  }
  w.value(static_cast<uint32_t>(local.comms.size()));
  for (const auto& [id, comm] : local.comms) {
    w.value(id);
    w.text(comm.name);
    w.value(static_cast<uint8_t>(comm.is_self ? 1 : 0));
    w.value(static_cast<uint32_t>(comm.members.size()));
    for (uint32_t member : comm.members) w.value(member);
  }
  return out;
}

Definitions deserialize_definitions(const char* data, std::size_t size, uint32_t rank) {
  Reader r(data, size);
  Definitions defs;
  const auto ranks = r.value<uint32_t>();
  RankDef own;
  own.location = r.value<uint64_t>();
  own.name = r.text();
  own.host = r.text();
  if (rank < ranks) {
    defs.ranks.resize(ranks);
    defs.ranks[rank] = std::move(own);
  }
  defs.timer_resolution = r.value<uint64_t>();
  const auto regions = r.value<uint32_t>();
  for (uint32_t i = 0; i < regions; ++i) {
    RegionDef region;
    region.name = r.text();
    region.file = r.text();
    region.line = r.value<int32_t>();
    region.paradigm = static_cast<Paradigm>(r.value<uint8_t>());
    region.role = static_cast<RegionRole>(r.value<uint8_t>());
    defs.regions.push_back(std::move(region));
  }
  const auto comms = r.value<uint32_t>();
  for (uint32_t i = 0; i < comms; ++i) {
    const auto id = r.value<uint32_t>();
    CommDef comm;
    comm.name = r.text();
    comm.is_self = r.value<uint8_t>() != 0;
    const auto members = r.value<uint32_t>();
    for (uint32_t m = 0; m < members; ++m) comm.members.push_back(r.value<uint32_t>());
    defs.comms[id] = std::move(comm);
  }
  return defs;
}

Definitions unify_definitions(const std::vector<Definitions>& local,
                              std::vector<IdMapping>& mappings) {
  Definitions unified;
  mappings.assign(local.size(), IdMapping{});
  std::map<RegionKey, uint32_t> regions;
  // Communicators: the self communicator, and (members, occurrence).
  uint32_t self_id = kNone;
  std::map<std::pair<std::vector<uint32_t>, uint32_t>, uint32_t> comms;
  uint32_t next_comm = 0;
  bool have_resolution = false;
  for (std::size_t r = 0; r < local.size(); ++r) {
    const Definitions& defs = local[r];
    IdMapping& mapping = mappings[r];
    // From the first rank with definitions (a rank without trace has none).
    if (!defs.regions.empty() && !have_resolution) {
      unified.timer_resolution = defs.timer_resolution;
      have_resolution = true;
    }
    mapping.regions.resize(defs.regions.size());
    for (std::size_t i = 0; i < defs.regions.size(); ++i) {
      const RegionDef& region = defs.regions[i];
      const auto [it, added] = regions.emplace(
          RegionKey{region.name, region.file, region.line, region.paradigm, region.role},
          static_cast<uint32_t>(unified.regions.size()));
      if (added) unified.regions.push_back(region);
      mapping.regions[i] = it->second;
    }
    if (!defs.comms.empty()) mapping.comms.assign(defs.comms.rbegin()->first + std::size_t{1}, kNone);
    std::map<std::vector<uint32_t>, uint32_t> occurrences;  // of this rank's member lists
    for (const auto& [id, comm] : defs.comms) {
      uint32_t unified_id = kNone;
      if (comm.is_self) {
        if (self_id == kNone) {
          self_id = next_comm++;
          unified.comms[self_id] = comm;
        }
        unified_id = self_id;
      } else {
        const uint32_t occurrence = occurrences[comm.members]++;
        const auto [it, added] = comms.emplace(std::make_pair(comm.members, occurrence), next_comm);
        if (added) unified.comms[next_comm++] = comm;
        unified_id = it->second;
      }
      mapping.comms[id] = unified_id;
    }
    RankDef rank;
    rank.location = r;
    if (r < defs.ranks.size()) rank = defs.ranks[r];
    unified.ranks.push_back(std::move(rank));
  }
  return unified;
}

Definitions unify_definitions(const Definitions& local, MPI_Comm world, IdMapping& mapping) {
  int rank = 0, size = 0;
  vmpi::Comm_rank(world, &rank);
  vmpi::Comm_size(world, &size);
  const std::vector<char> mine = serialize_definitions(local, static_cast<uint32_t>(rank));
  // Definitions are small (kilobytes to megabytes); an int count suffices,
  // and a larger one is refused on every rank alike.
  long long length = static_cast<long long>(mine.size());
  std::vector<long long> lengths(static_cast<std::size_t>(size));
  vmpi::Allgather(&length, 1, MPI_LONG_LONG, lengths.data(), 1, MPI_LONG_LONG, world);
  std::vector<int> counts(lengths.size()), displs(lengths.size());
  long long total = 0;
  for (std::size_t r = 0; r < lengths.size(); ++r) {
    displs[r] = static_cast<int>(total);
    counts[r] = static_cast<int>(lengths[r]);
    total += lengths[r];
  }
  if (total > INT_MAX) {
    throw InputError("the ranks' definitions are too large to unify (" + std::to_string(total) +
                     " bytes)");
  }
  std::vector<char> all(static_cast<std::size_t>(total));
  vmpi::Allgatherv(mine.data(), static_cast<int>(mine.size()), MPI_CHAR, all.data(), counts.data(),
                 displs.data(), MPI_CHAR, world);
  std::vector<Definitions> defs(lengths.size());
  for (std::size_t r = 0; r < defs.size(); ++r) {
    defs[r] = deserialize_definitions(all.data() + displs[r], static_cast<std::size_t>(counts[r]),
                                      static_cast<uint32_t>(r));
  }
  std::vector<IdMapping> mappings;
  Definitions unified = unify_definitions(defs, mappings);
  mapping = std::move(mappings[static_cast<std::size_t>(rank)]);
  return unified;
}

}  // namespace orrery::analyzer

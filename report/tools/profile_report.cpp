// Per-rank profiles (EXP/profile/rank-<r>.json) to one cube: regions and call
// paths are united across ranks by name (the ranks' ids are local), laid out
// in pre-order, one location per rank.

#include "profile_report.h"

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "../src/preorder_union.h"
#include "orrery/error.h"
#include "orrery/report/hdf5_io.h"
#include "tool_support.h"

namespace orrery::report::tools {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

/// The profile's metric rows, a parent before its children (profile_metrics() lists them).
enum MetricRow : std::size_t {
  kTime, kExecution, kMpi, kOverhead, kVisits, kBytesSent, kBytesReceived, kBytesCollOut,
  kBytesCollIn, kSends, kReceives, kCollectives, kMetricCount
};

std::vector<Metric> profile_metrics() {
  const std::string from_profile = " (from a profile: summed at the call path by the measurement)";
  return {
      {"time", "Time", -1, "sec", "Total time of the call path, exclusive of its children" + from_profile,
       "A profile has no wait states: measure with --mode trace and run orrery-analyze to see why MPI time is spent"},
      {"execution", "Execution", 0, "sec", "Time not spent in measurement overhead", ""},
      {"mpi", "MPI", 1, "sec", "Time inside MPI calls", ""},
      {"overhead", "Overhead", 0, "sec", "The measurement's own work inside the run (buffer flushes)", ""},
      {"visits", "Visits", -1, "occ", "Number of times the call path was entered", ""},
      {"bytes_sent", "Bytes sent", -1, "bytes", "Point-to-point bytes sent" + from_profile, ""},
      {"bytes_received", "Bytes received", -1, "bytes", "Point-to-point bytes received" + from_profile, ""},
      {"bytes_coll_out", "Collective bytes out", -1, "bytes", "Bytes a collective sent" + from_profile, ""},
      {"bytes_coll_in", "Collective bytes in", -1, "bytes", "Bytes a collective received" + from_profile, ""},
      {"sends", "Sends", -1, "occ", "Point-to-point sends (blocking and posted)", ""},
      {"receives", "Receives", -1, "occ", "Completed point-to-point receives", ""},
      {"collectives", "Collectives", -1, "occ", "Collective operations", ""},
  };
}

/// The counter fields of a call path, by metric row.
constexpr std::array<std::pair<MetricRow, const char*>, 8> kCounters = {{
    {kVisits, "visits"}, {kBytesSent, "bytes_sent"}, {kBytesReceived, "bytes_received"},
    {kBytesCollOut, "bytes_coll_out"}, {kBytesCollIn, "bytes_coll_in"}, {kSends, "sends"},
    {kReceives, "receives"}, {kCollectives, "collectives"},
}};

json read_profile(const fs::path& path) {
  std::ifstream in(path);
  json doc = json::parse(in, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || doc.value("format", "") != "orrery-profile" ||
      !doc.contains("regions") || !doc.contains("call_paths") || !doc["call_paths"].is_array()) {
    throw InputError(path.string() + ": not an Orrery profile (damaged or truncated)");
  }
  return doc;
}

std::vector<json> read_profiles(const fs::path& dir) {
  std::vector<json> profiles;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(dir, error)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with("rank-") && name.ends_with(".json")) profiles.push_back(read_profile(entry.path()));
  }
  if (error || profiles.empty()) {
    throw InputError(dir.string() + ": no profiles (rank-<r>.json); was the run made with --mode profile?");
  }
  std::sort(profiles.begin(), profiles.end(),
            [](const json& a, const json& b) { return a.value("rank", 0) < b.value("rank", 0); });
  return profiles;
}

/// Which time metric a region's exclusive time belongs to.
MetricRow time_class(const std::string& paradigm) {
  if (paradigm == "mpi") return kMpi;
  if (paradigm == "measurement") return kOverhead;
  return kExecution;
}

/// One rank's call paths mapped onto the united tree.
struct RankPaths {
  std::vector<std::size_t> node;  ///< united node per local call path id
  const json* call_paths = nullptr;
};

}  // namespace

std::string write_profile_report(const std::string& experiment_dir) {
  const std::vector<json> profiles = read_profiles(fs::path(experiment_dir) / "profile");
  Cube cube;
  cube.header.metrics = profile_metrics();
  cube.header.attributes.creator = "orrery run --mode profile";
  cube.header.attributes.experiment = experiment_dir;

  std::map<std::string, std::size_t> region_rows;  // name, file, line, paradigm -> row
  PreorderUnion tree;
  std::vector<std::size_t> node_region;  // united node -> region row
  std::vector<RankPaths> ranks;
  try {
    for (const json& profile : profiles) {
      std::vector<std::size_t> regions;
      for (const json& r : profile.at("regions")) {
        Region region{r.at("name").get<std::string>(), r.value("file", ""), r.value("line", 0),
                      r.value("paradigm", "")};
        const std::string key = region.name + '\x1f' + region.file + '\x1f' +
                                std::to_string(region.line) + '\x1f' + region.paradigm;
        const auto [it, added] = region_rows.emplace(key, cube.header.regions.size());
        if (added) cube.header.regions.push_back(region);
        regions.push_back(it->second);
      }
      RankPaths rank;
      rank.call_paths = &profile.at("call_paths");
      std::vector<std::string> keys;
      for (const json& path : *rank.call_paths) {
        const auto id = path.at("id").get<std::size_t>();
        const auto region = regions.at(path.at("region").get<std::size_t>());
        std::optional<std::size_t> parent;
        std::string key = std::to_string(region);
        if (!path.at("parent").is_null()) {
          const auto local_parent = path.at("parent").get<std::size_t>();
          if (local_parent >= id || id != keys.size()) throw std::out_of_range("call path order");
          parent = rank.node.at(local_parent);
          key = keys.at(local_parent) + '/' + key;
        } else if (id != keys.size()) {
          throw std::out_of_range("call path order");
        }
        const std::size_t node = tree.add(key, parent);
        if (node == node_region.size()) node_region.push_back(region);
        rank.node.push_back(node);
        keys.push_back(std::move(key));
      }
      ranks.push_back(std::move(rank));
      cube.header.locations.push_back({profile.value("rank", 0), 0, profile.value("host", ""),
                                       "rank " + std::to_string(profile.value("rank", 0))});
    }
  } catch (const json::exception& error) {
    throw InputError(experiment_dir + "/profile: damaged profile (" + error.what() + ")");
  } catch (const std::out_of_range&) {
    throw InputError(experiment_dir + "/profile: damaged profile (a call path refers to an unknown "
                     "region or parent)");
  }
  tree.lay_out();
  for (std::size_t row = 0; row < tree.size(); ++row) {
    cube.header.callpaths.push_back(
        {tree.parent_row(row), static_cast<int32_t>(node_region[tree.order()[row]])});
  }

  const std::size_t width = ranks.size();
  cube.values.assign(kMetricCount, MetricValues(tree.size() * width, 0.0));
  for (std::size_t l = 0; l < width; ++l) {
    const json& paths = *ranks[l].call_paths;
    for (std::size_t local = 0; local < paths.size(); ++local) {
      const json& path = paths[local];
      const std::size_t row = tree.row_of(ranks[l].node[local]);
      const std::size_t cell = row * width + l;
      const Region& region = cube.header.regions[static_cast<std::size_t>(cube.header.callpaths[row].region)];
      cube.values[time_class(region.paradigm)][cell] += path.value("exclusive_ns", 0.0) * 1e-9;
      for (const auto& [metric, field] : kCounters) cube.values[metric][cell] += path.value(field, 0.0);
    }
  }
  const std::string report = (fs::path(experiment_dir) / "report.h5").string();
  write_report_atomically(report, {}, [&](const std::string& temporary) { write_cube(temporary, cube); });
  return report;
}

}  // namespace orrery::report::tools

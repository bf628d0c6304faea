#include "topology_view.h"

#include <filesystem>
#include <map>
#include <vector>

#include "orrery/bounded_read.h"

namespace orrery::viewer {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

/// One Cartesian communicator as the ranks recorded it.
struct Grid {
  json dims;
  json periods;
  json ranks = json::array();
};

}  // namespace

json read_cartesian_topology(const std::string& experiment) {
  const fs::path directory = fs::path(experiment) / "topology";
  std::error_code error;
  if (experiment.empty() || !fs::is_directory(directory, error)) {
    return {{"available", false},
            {"reason", "The program created no process topology (no MPI_Cart_create, or it was not measured "
                       "with this version of orrery run): nothing under " + directory.string() + "."}};
  }
  std::map<int64_t, Grid> grids;  // by (global) communicator id
  std::size_t unreadable = 0;
  for (const auto& entry : fs::directory_iterator(directory, error)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("rank-", 0) != 0 || entry.path().extension() != ".json") continue;
    const auto text = read_bounded_text(entry.path());
    const json record = text ? json::parse(*text, nullptr, false) : json(json::value_t::discarded);
    if (record.is_discarded() || !record.is_object() || !record.contains("rank") || !record["rank"].is_number_integer() ||
        record.value("format", "") != "orrery-topology" || !record.contains("comms") || !record["comms"].is_array()) {
      ++unreadable;
      continue;
    }
    // Ids are comparable across ranks only when unified ("ids": "global").
    if (record.value("ids", "") != "global") continue;
    for (const auto& comm : record["comms"]) {
      if (!comm.is_object() || !comm.contains("cart") || !comm.contains("comm") || !comm["comm"].is_number_integer()) continue;
      const json& cart = comm["cart"];
      if (!cart.is_object() || !cart.contains("dims") || !cart.contains("coords") || !cart["coords"].is_array()) continue;
      Grid& grid = grids[comm["comm"].get<int64_t>()];
      grid.dims = cart["dims"];
      grid.periods = cart.value("periods", json::array());
      json row = json::array({record["rank"]});
      for (const auto& c : cart["coords"]) row.push_back(c);
      grid.ranks.push_back(std::move(row));
    }
  }
  if (grids.empty()) {
    std::string why = "The program created no Cartesian topology (MPI_Cart_create)";
    if (unreadable > 0) why += "; " + std::to_string(unreadable) + " topology record(s) could not be read";
    return {{"available", false}, {"reason", why + "."}};
  }
  auto best = grids.begin();
  for (auto it = grids.begin(); it != grids.end(); ++it) {
    if (it->second.ranks.size() > best->second.ranks.size()) best = it;
  }
  return {{"available", true},
          {"comm", best->first},
          {"dims", best->second.dims},
          {"periods", best->second.periods},
          {"ranks", best->second.ranks},
          {"grids", grids.size()}};
}

}  // namespace orrery::viewer

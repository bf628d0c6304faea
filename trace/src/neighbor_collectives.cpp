#include "orrery/trace/neighbor_collectives.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "orrery/error.h"

namespace orrery::analyzer {

bool is_neighbor_collective(const RegionDef& region) {
  return region.paradigm == Paradigm::kMpi &&
         (region.name.starts_with("MPI_Neighbor_") || region.name.starts_with("MPI_Ineighbor_"));
}

void mark_neighbor_collectives(const Definitions& definitions, TraceBuilder& builder) {
  for (uint32_t id = 0; id < definitions.regions.size(); ++id) {
    if (is_neighbor_collective(definitions.regions[id])) builder.neighborhood_in(id);
  }
}

void read_in_neighbors(const std::string& experiment, uint32_t rank, const IdMapping* mapping,
                       Definitions& definitions) {
  namespace fs = std::filesystem;
  fs::path dir(experiment);
  if (experiment.ends_with(".otf2")) dir = dir.parent_path();
  const fs::path file = dir / "topology" / ("rank-" + std::to_string(rank) + ".json");
  std::ifstream in(file);
  if (!in) return;
  const nlohmann::json topology = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  const auto bad = [&] {
    return InputError("the topology file " + file.string() +
                      " is malformed (expected {\"ids\": ..., \"comms\": [{\"comm\": id, "
                      "\"in_neighbors\": [ranks]}]})");
  };
  if (!topology.is_object() || !topology.contains("comms") || !topology["comms"].is_array()) {
    throw bad();
  }
  const bool local = topology.value("ids", std::string("global")) == "local";
  for (const auto& entry : topology["comms"]) {
    if (!entry.is_object() || !entry.contains("comm") || !entry["comm"].is_number_unsigned() ||
        !entry.contains("in_neighbors") || !entry["in_neighbors"].is_array()) {
      throw bad();
    }
    auto comm = entry["comm"].get<uint32_t>();
    if (local && mapping != nullptr) {
      comm = comm < mapping->comms.size() ? mapping->comms[comm] : kNone;
      if (comm == kNone) continue;
    }
    std::vector<uint32_t> sources;
    for (const auto& source : entry["in_neighbors"]) {
      if (!source.is_number_unsigned()) throw bad();
      sources.push_back(source.get<uint32_t>());
    }
    definitions.in_neighbors[comm] = std::move(sources);
  }
}

}  // namespace orrery::analyzer

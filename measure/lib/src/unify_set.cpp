#include "unify_set.h"

#include <nlohmann/json.hpp>

namespace orrery::measure {

using nlohmann::json;

DefinitionSet DefinitionSet::of_rank(const LocalDefinitions& local, const std::string& host) {
  DefinitionSet set;
  set.regions = local.regions();
  set.comms = local.comms();
  for (std::size_t i = 0; i < set.comms.size(); ++i) {
    if (set.comms[i].parent != UINT32_MAX && set.comms[i].parent >= i) set.comms[i].parent = UINT32_MAX;
  }
  set.hosts.emplace_back(host, 1);
  return set;
}

std::vector<std::string> DefinitionSet::host_per_rank() const {
  std::vector<std::string> out;
  for (const auto& [host, ranks] : hosts) out.insert(out.end(), ranks, host);
  return out;
}

std::vector<uint8_t> DefinitionSet::encode() const {
  json regions_json = json::array();
  for (const RegionDef& r : regions) {
    regions_json.push_back({r.name, r.file, r.line, static_cast<int>(r.paradigm), static_cast<int>(r.role)});
  }
  json comms_json = json::array();
  for (const CommDef& c : comms) {
    comms_json.push_back({c.key_root, c.key_seq, c.name, static_cast<int>(c.kind), c.members,
                          c.parent == UINT32_MAX ? -1 : static_cast<int64_t>(c.parent), c.key_path});
  }
  json hosts_json = json::array();
  for (const auto& [host, ranks] : hosts) hosts_json.push_back({host, ranks});
  return json::to_cbor(json{{"regions", regions_json}, {"comms", comms_json}, {"hosts", hosts_json}});
}

DefinitionSet DefinitionSet::decode(const std::vector<uint8_t>& blob) {
  const json in = json::from_cbor(blob);
  DefinitionSet set;
  for (const json& r : in.at("regions")) {
    RegionDef def;
    def.name = r.at(0).get<std::string>();
    def.file = r.at(1).get<std::string>();
    def.line = r.at(2).get<uint32_t>();
    def.paradigm = static_cast<Paradigm>(r.at(3).get<int>());
    def.role = static_cast<RegionRole>(r.at(4).get<int>());
    set.regions.push_back(std::move(def));
  }
  for (const json& c : in.at("comms")) {
    CommDef def;
    def.key_root = c.at(0).get<int32_t>();
    def.key_seq = c.at(1).get<uint32_t>();
    def.name = c.at(2).get<std::string>();
    def.kind = static_cast<CommDef::Kind>(c.at(3).get<int>());
    def.members = c.at(4).get<std::vector<int>>();
    const int64_t parent = c.at(5).get<int64_t>();
    def.parent = parent >= 0 && static_cast<std::size_t>(parent) < set.comms.size() ? static_cast<uint32_t>(parent)
                                                                                     : UINT32_MAX;
    def.key_path = c.at(6).get<std::string>();
    set.comms.push_back(std::move(def));
  }
  for (const json& h : in.at("hosts")) set.hosts.emplace_back(h.at(0).get<std::string>(), h.at(1).get<uint32_t>());
  return set;
}

BlockMap DefinitionUnion::append(const DefinitionSet& block) {
  BlockMap map;
  for (const RegionDef& def : block.regions) {
    auto key = std::make_tuple(def.name, def.file, def.line, static_cast<int>(def.paradigm));
    auto [it, added] = regions_.emplace(std::move(key), static_cast<uint32_t>(set_.regions.size()));
    if (added) set_.regions.push_back(def);
    map.regions.push_back(it->second);
  }
  for (const CommDef& def : block.comms) {
    auto key = std::make_tuple(def.key_root, def.key_seq, def.key_path);
    auto [it, added] = comms_.emplace(std::move(key), static_cast<uint32_t>(set_.comms.size()));
    if (added) {
      CommDef copy = def;
      copy.parent = def.parent < map.comms.size() ? map.comms[def.parent] : UINT32_MAX;
      set_.comms.push_back(std::move(copy));
    }
    map.comms.push_back(it->second);
  }
  for (const auto& [host, ranks] : block.hosts) append_hosts(host, ranks);
  return map;
}

void DefinitionUnion::append_unknown_hosts(uint32_t ranks) { append_hosts(std::string(), ranks); }

void DefinitionUnion::append_hosts(const std::string& host, uint32_t ranks) {
  if (!set_.hosts.empty() && set_.hosts.back().first == host) {
    set_.hosts.back().second += ranks;
  } else {
    set_.hosts.emplace_back(host, ranks);
  }
}

}  // namespace orrery::measure

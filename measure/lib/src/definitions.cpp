#include "definitions.h"

namespace orrery::measure {

uint32_t LocalDefinitions::add_region(RegionDef def) {
  regions_.push_back(std::move(def));
  return static_cast<uint32_t>(regions_.size() - 1);
}

uint32_t LocalDefinitions::region_by_name(std::string_view name, Paradigm paradigm,
                                          RegionRole role) {
  auto& index = by_name_[static_cast<int>(paradigm)];
  std::string key(name);
  if (auto it = index.find(key); it != index.end()) return it->second;
  RegionDef def;
  def.name = key;
  def.paradigm = paradigm;
  def.role = role;
  const uint32_t id = add_region(std::move(def));
  index.emplace(std::move(key), id);
  return id;
}

uint32_t LocalDefinitions::add_comm(CommDef def) {
  comms_.push_back(std::move(def));
  return static_cast<uint32_t>(comms_.size() - 1);
}

}  // namespace orrery::measure

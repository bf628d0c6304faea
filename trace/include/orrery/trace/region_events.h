#pragma once
// One location's Enter and Leave events, unfolded, in trace order: what the
// OpenMP analysis needs of every thread (openmp_analysis.h), where the
// replay's reader keeps only instances that communicate.

#include <cstdint>
#include <string>
#include <vector>

namespace orrery::analyzer {

/// An Enter or Leave of a region, in trace ticks.
struct RegionEvent {
  int64_t time = 0;
  uint32_t region = 0;
  bool enter = false;
  /// Enter of an OpenMP implicit task: its team's id (the "OpenMP team"
  /// attribute, unique in the process); 0 if none was recorded.
  uint64_t team = 0;
};

/// No attribute (OTF2_UNDEFINED_ATTRIBUTE).
inline constexpr uint32_t kNoTeamAttribute = 0xffffffffu;

/// The id of the "OpenMP team" attribute in `experiment`'s global
/// definitions, kNoTeamAttribute if it has none (team_attribute.cpp); throws
/// InputError if they cannot be read.
[[nodiscard]] uint32_t read_team_attribute(const std::string& experiment);

/// The Enter/Leave events of OTF2 location `location` of `experiment`, with
/// the team of Enters that carry attribute `team_attribute`; throws
/// InputError if they cannot be read.
[[nodiscard]] std::vector<RegionEvent> read_region_events(const std::string& experiment, uint64_t location,
                                                          uint32_t team_attribute = kNoTeamAttribute);

}  // namespace orrery::analyzer

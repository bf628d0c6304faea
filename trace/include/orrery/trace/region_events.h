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
};

/// The Enter/Leave events of OTF2 location `location` of `experiment`;
/// throws InputError if they cannot be read.
[[nodiscard]] std::vector<RegionEvent> read_region_events(const std::string& experiment, uint64_t location);

}  // namespace orrery::analyzer

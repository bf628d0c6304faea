#pragma once
// The event of the critical-path analysis (replay_critical_path.h) for the
// patterns: time of one call path of this process on the run's critical path.

#include <cstdint>

namespace orrery::analyzer {

/// `ticks` of call path `callpath` (this process) lie on the critical path.
struct CriticalPathFound {
  uint32_t callpath = 0;
  int64_t ticks = 0;
};

}  // namespace orrery::analyzer

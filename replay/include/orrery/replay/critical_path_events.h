#pragma once
// The event of the critical-path analysis (replay_critical_path.h) for the
// patterns: time of one call path of this process on the run's critical path.

#include <cstddef>
#include <cstdint>

namespace orrery::analyzer {

/// `ticks` of call path `callpath` (this process) lie on the critical path.
struct CriticalPathFound {
  uint32_t callpath = 0;
  int64_t ticks = 0;
};

/// Many CriticalPathFound at once, in the order the walk found them: the
/// walk publishes its stretches' call paths in batches (one delivery per
/// batch, not per call path: the communication-only benchmark trace has
/// two per message). The items live until the delivery returns.
struct CriticalPathBatch {
  const CriticalPathFound* items = nullptr;
  std::size_t count = 0;
};

}  // namespace orrery::analyzer

#pragma once
// Index conventions shared by the analyzer's compact tables.

#include <cstdint>
#include <limits>

namespace orrery::analyzer {

/// Marker for "no index / not known" in the compact tables.
inline constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

/// Value for messages that have none (cancelled, never matched, not completed).
inline constexpr int64_t kNoValue = std::numeric_limits<int64_t>::min();

}  // namespace orrery::analyzer

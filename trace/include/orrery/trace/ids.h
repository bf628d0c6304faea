#pragma once
// Index conventions shared by the analyzer's compact tables.

#include <cstdint>
#include <limits>

namespace orrery::analyzer {

/// Marker for "no index / not known" in the compact tables.
inline constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

}  // namespace orrery::analyzer

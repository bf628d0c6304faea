#pragma once
// The random token every request to the viewer must carry.

#include <string>
#include <string_view>

namespace orrery::viewer {

/// 32 hex digits from /dev/urandom; throws orrery::Error if it cannot be read.
[[nodiscard]] std::string random_token();

/// Compares in time independent of where the strings differ.
[[nodiscard]] bool tokens_equal(std::string_view expected, std::string_view given);

}  // namespace orrery::viewer

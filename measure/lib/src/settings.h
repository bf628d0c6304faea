#pragma once
// Reading the ORRERY_* environment.

#include <cstddef>
#include <string>

#include "recorder.h"

namespace orrery::measure {

/// Parses "4096", "64K", "16M", "1G" (binary units). False if malformed.
bool parse_size(const std::string& text, std::size_t& bytes) noexcept;

/// Settings from the environment; malformed values keep their defaults and are
/// described in `warnings` (one line each).
Settings read_settings(std::string& warnings);

}  // namespace orrery::measure

#pragma once
// Reads a small text file (run.json, a marker, a filter) whole, refusing one
// larger than a limit: a metadata file of gigabytes is damage, and parsing it
// would cost memory in proportion to whatever the file claims to hold.

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

namespace orrery {

/// Largest metadata file (run.json and kin) a reader accepts.
inline constexpr std::uintmax_t kMaxMetadataFileBytes = 64u << 20;

/// The file's text; nullopt if it is missing, unreadable or larger than `max_bytes`.
inline std::optional<std::string> read_bounded_text(
    const std::filesystem::path& path, std::uintmax_t max_bytes = kMaxMetadataFileBytes) {
  std::error_code error;
  const std::uintmax_t size = std::filesystem::file_size(path, error);
  if (error || size > max_bytes) {
    return std::nullopt;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return std::nullopt;
  }
  std::ostringstream text;
  text << in.rdbuf();
  return std::move(text).str();
}

}  // namespace orrery

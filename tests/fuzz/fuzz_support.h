#pragma once
// What the fuzz targets share: a per-process scratch file for readers that
// take paths (HDF5, OTF2), written anew for every input.

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace orrery::fuzz {

/// A path under $TMPDIR (default /tmp) unique to this process.
inline std::string scratch_path(const std::string& name) {
  const char* base = std::getenv("TMPDIR");
  const std::filesystem::path dir = std::filesystem::path(base != nullptr ? base : "/tmp") /
                                    ("orrery-fuzz-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

/// Replaces `path` with `size` bytes of `data`; false if it cannot.
inline bool write_file(const std::string& path, const uint8_t* data, std::size_t size) {
  std::FILE* out = std::fopen(path.c_str(), "wb");
  if (out == nullptr) {
    return false;
  }
  const bool written = size == 0 || std::fwrite(data, 1, size, out) == size;
  return std::fclose(out) == 0 && written;
}

}  // namespace orrery::fuzz

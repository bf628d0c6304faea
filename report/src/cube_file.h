#pragma once
// What reading (hdf5_io.cpp) and writing (cube_writer.cpp) report.h5 share.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <ctime>
#include <string>

#include "hdf5_handle.h"
#include "report_schema.h"

namespace orrery::report::cube_file {


inline constexpr const char* kFormat = "orrery-cube";
inline constexpr int64_t kFormatVersion = 1;
inline constexpr const char* kValuesGroup = schema::kValuesGroup;
// About 1 MiB per chunk: small enough that reading one call path's row
// decompresses little, large enough that a whole metric reads fast.
inline constexpr std::size_t kChunkElements = 128 * 1024;
inline constexpr std::size_t kMaxChunkColumns = 64 * 1024;
// Room for a few chunks, so consecutive rows of one chunk decompress once.
inline constexpr std::size_t kChunkCacheBytes = 8u << 20;
// What reading a report's header may map beyond four times the file's size
// (HDF5's caches, conversion buffers and the strings' own overhead).
inline constexpr std::size_t kHeaderReadBudget = 128u << 20;

/// File access: keep HDF5's file locks where the file system has them, but do
/// not fail where it does not (Lustre, some NFS) — a common cause of "cannot open".
inline h5::Handle file_access(const std::string& file) {
  h5::Handle access = h5::checked_plist(H5Pcreate(H5P_FILE_ACCESS), file, "cannot open");
  H5Pset_file_locking(access.get(), true, true);
  return access;
}

inline std::string values_path(const std::string& metric) {
  return std::string(kValuesGroup) + "/" + metric;
}

inline std::string now_iso8601() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}


}  // namespace orrery::report::cube_file

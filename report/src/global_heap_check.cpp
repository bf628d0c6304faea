#include "global_heap_check.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>
#include <string_view>

#include "hdf5_handle.h"

namespace orrery::report {
namespace {

// The on-disk layout (HDF5 file format specification, "Global Heap"):
// "GCOL", version 1, three reserved bytes, the collection size (a length:
// 8 bytes in every file Orrery, h5py or HDF5's defaults write); then objects
// of index (2 bytes), reference count (2), reserved (4), size (8) and data
// padded to a multiple of 8. Index 0 is the free space at the end.
constexpr std::string_view kSignature = "GCOL";
constexpr std::size_t kCollectionHeader = 16;
constexpr std::size_t kObjectHeader = 16;

uint64_t little_endian(const unsigned char* bytes, std::size_t count) {
  uint64_t value = 0;
  for (std::size_t i = count; i-- > 0;) {
    value = (value << 8) | bytes[i];
  }
  return value;
}

uint64_t aligned(uint64_t size) { return (size + 7) / 8 * 8; }

/// What HDF5's collection loader does, with every step bounded; an empty
/// string if the walk ends cleanly, else what is wrong.
std::string walk_collection(const unsigned char* file, std::size_t file_size, std::size_t at) {
  const uint64_t size = little_endian(file + at + 8, 8);
  if (size < kCollectionHeader || size > file_size - at) {
    return "a global heap collection claims " + std::to_string(size) + " bytes";
  }
  const std::size_t end = at + size;
  std::size_t p = at + kCollectionHeader;
  while (p < end) {
    if (p + kObjectHeader > end) {
      return {};  // too small for an object: the loader takes it as free space
    }
    const uint64_t index = little_endian(file + p, 2);
    const uint64_t object = little_endian(file + p + 8, 8);
    const uint64_t need = index == 0 ? object : kObjectHeader + aligned(object);
    if (object > size || need == 0 || need > end - p) {
      return "a global heap object claims " + std::to_string(object) + " bytes";
    }
    p += need;
  }
  return {};
}

}  // namespace

void check_global_heaps(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return;  // opening it is HDF5's to report
  }
  struct stat info {};
  if (fstat(fd, &info) != 0 || info.st_size <= 0) {
    close(fd);
    return;
  }
  const auto file_size = static_cast<std::size_t>(info.st_size);
  void* mapped = mmap(nullptr, file_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (mapped == MAP_FAILED) {
    return;
  }
  const auto* bytes = static_cast<const unsigned char*>(mapped);
  std::string problem;
  for (std::size_t at = 0; problem.empty() && at + kCollectionHeader <= file_size; ++at) {
    const void* found = memmem(bytes + at, file_size - at, kSignature.data(), kSignature.size());
    if (found == nullptr) {
      break;
    }
    at = static_cast<std::size_t>(static_cast<const unsigned char*>(found) - bytes);
    // HDF5 loads a collection with version 1 whatever its reserved bytes
    // hold (a fuzzer's input with a non-zero reserved byte and an empty free
    // space object hung every tool). Walked: version 1 with zero reserved
    // bytes (five more bytes that compressed data matches by chance once in
    // 2^40 signatures), or version 1 with a size that fits the file (an
    // 8-byte size within the file: far rarer by chance still).
    if (at + kCollectionHeader <= file_size && bytes[at + 4] == 1) {
      const bool reserved_zero = bytes[at + 5] == 0 && bytes[at + 6] == 0 && bytes[at + 7] == 0;
      const uint64_t size = little_endian(bytes + at + 8, 8);
      if (reserved_zero || (size >= kCollectionHeader && size <= file_size - at)) {
        problem = walk_collection(bytes, file_size, at);
      }
    }
  }
  munmap(mapped, file_size);
  if (!problem.empty()) {
    h5::fail(path, problem + " (corrupt)");
  }
}

}  // namespace orrery::report

#pragma once
// A cap on how much memory a read of untrusted input may add to the process.
//
// Sizes inside a damaged file (an HDF5 string length, a datatype's member
// offset, a definition count) reach the libraries that read them before any
// check of ours can see them, and HDF5 1.10 allocates and zero-fills whatever
// a corrupt length asks for (10 GB for eight flipped bytes of a 120 KB
// report). While such a read runs, the process's address-space limit
// (RLIMIT_AS, soft) is lowered to what it uses now plus a budget, so an
// absurd allocation fails at once (and HDF5 reports "memory allocation
// failed") instead of paging the machine to death. The old limit is restored
// afterwards. Under AddressSanitizer, which reserves terabytes of shadow
// address space, the limit is not touched (ASan's own allocator limits apply).

#include <sys/resource.h>
#include <unistd.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>

namespace orrery {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kAddressSpaceLimitsUsable = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
inline constexpr bool kAddressSpaceLimitsUsable = false;
#else
inline constexpr bool kAddressSpaceLimitsUsable = true;
#endif
#else
inline constexpr bool kAddressSpaceLimitsUsable = true;
#endif

/// The process's mapped address space in bytes (0 if unknown).
inline std::size_t mapped_bytes() {
  std::FILE* statm = std::fopen("/proc/self/statm", "r");
  if (statm == nullptr) {
    return 0;
  }
  unsigned long pages = 0;
  const int read = std::fscanf(statm, "%lu", &pages);
  std::fclose(statm);
  const long page_size = sysconf(_SC_PAGESIZE);
  return read == 1 && page_size > 0 ? pages * static_cast<std::size_t>(page_size) : 0;
}

/// While alive, the process may map at most `budget` bytes beyond what it maps now.
class ScopedAllocationLimit {
 public:
  explicit ScopedAllocationLimit(std::size_t budget) {
    if (!kAddressSpaceLimitsUsable || getrlimit(RLIMIT_AS, &saved_) != 0) {
      return;
    }
    const std::size_t now = mapped_bytes();
    if (now == 0 || budget > std::numeric_limits<rlim_t>::max() - now) {
      return;
    }
    rlimit lowered = saved_;
    lowered.rlim_cur = static_cast<rlim_t>(now + budget);
    if (saved_.rlim_cur != RLIM_INFINITY && saved_.rlim_cur < lowered.rlim_cur) {
      return;  // already tighter
    }
    active_ = setrlimit(RLIMIT_AS, &lowered) == 0;
  }
  ~ScopedAllocationLimit() {
    if (active_) {
      setrlimit(RLIMIT_AS, &saved_);
    }
  }
  ScopedAllocationLimit(const ScopedAllocationLimit&) = delete;
  ScopedAllocationLimit& operator=(const ScopedAllocationLimit&) = delete;

  /// Whether the limit is in force (false under sanitizers or where the OS refused).
  [[nodiscard]] bool active() const { return active_; }

 private:
  rlimit saved_{};
  bool active_ = false;
};

}  // namespace orrery

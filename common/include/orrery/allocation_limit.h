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

#include <cctype>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "orrery/error.h"

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

/// The RLIMIT_AS soft limit that lets the process map `budget` bytes beyond
/// what it maps now, given the limit in force (`current`); nothing where no
/// limit can be set (sanitizers, mapping unknown) or `current` is tighter.
inline std::optional<rlimit> address_limit_for(std::size_t budget, const rlimit& current) {
  if (!kAddressSpaceLimitsUsable) {
    return std::nullopt;
  }
  const std::size_t now = mapped_bytes();
  if (now == 0 || budget > std::numeric_limits<rlim_t>::max() - now) {
    return std::nullopt;
  }
  rlimit lowered = current;
  lowered.rlim_cur = static_cast<rlim_t>(now + budget);
  if (current.rlim_cur != RLIM_INFINITY && current.rlim_cur < lowered.rlim_cur) {
    return std::nullopt;
  }
  return lowered;
}

/// While alive, the process may map at most `budget` bytes beyond what it maps now.
class ScopedAllocationLimit {
 public:
  explicit ScopedAllocationLimit(std::size_t budget) {
    if (getrlimit(RLIMIT_AS, &saved_) != 0) {
      return;
    }
    if (const auto lowered = address_limit_for(budget, saved_)) {
      active_ = setrlimit(RLIMIT_AS, &*lowered) == 0;
    }
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

/// The machine's physical memory in bytes (0 if unknown).
inline std::size_t physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  return pages > 0 && page_size > 0
             ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page_size)
             : 0;
}

/// "512M", "2G", "1.5G", "4096" (bytes; K, M, G, T are powers of 1024);
/// nothing for anything else, or for zero.
inline std::optional<std::size_t> parse_byte_size(std::string_view text) {
  std::size_t digits = 0;
  while (digits < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[digits])) != 0 || text[digits] == '.')) {
    ++digits;
  }
  if (digits == 0) {
    return std::nullopt;
  }
  std::string number(text.substr(0, digits));
  char* end = nullptr;
  const double value = std::strtod(number.c_str(), &end);
  if (end != number.c_str() + number.size()) {
    return std::nullopt;
  }
  std::string_view unit = text.substr(digits);
  if (!unit.empty() && (unit.back() == 'B' || unit.back() == 'b')) {
    unit.remove_suffix(1);
  }
  double scale = 1;
  if (unit.size() == 1) {
    const std::string_view units = "KMGT";
    const auto at = units.find(static_cast<char>(std::toupper(static_cast<unsigned char>(unit[0]))));
    if (at == std::string_view::npos) {
      return std::nullopt;
    }
    for (std::size_t i = 0; i <= at; ++i) scale *= 1024;
  } else if (!unit.empty()) {
    return std::nullopt;
  }
  const double bytes = value * scale;
  if (!(bytes >= 1) || bytes > 1e18) {
    return std::nullopt;
  }
  return static_cast<std::size_t>(bytes);
}

/// Caps the process's memory for the rest of its life: it may map at most
/// `budget` bytes beyond what it maps now (RLIMIT_AS). An allocation beyond
/// fails (std::bad_alloc, or an HDF5 "memory allocation failed") instead of
/// paging the machine to death. False where no new cap was set (sanitizers,
/// or a tighter limit already in force).
inline bool limit_process_memory(std::size_t budget) {
  rlimit current{};
  if (getrlimit(RLIMIT_AS, &current) != 0) {
    return false;
  }
  const auto lowered = address_limit_for(budget, current);
  return lowered && setrlimit(RLIMIT_AS, &*lowered) == 0;
}

/// The cap ORRERY_MEMORY_LIMIT asks for ("4G", "512M"; docs/robustness.md):
/// nothing if unset; a UsageError if it is not a size.
inline std::optional<std::size_t> memory_limit_from_environment() {
  const char* text = std::getenv("ORRERY_MEMORY_LIMIT");
  if (text == nullptr || *text == '\0') {
    return std::nullopt;
  }
  const auto bytes = parse_byte_size(text);
  if (!bytes) {
    throw UsageError("ORRERY_MEMORY_LIMIT='" + std::string(text) +
                     "' is not a size (e.g. 4G, 512M)");
  }
  return bytes;
}

}  // namespace orrery

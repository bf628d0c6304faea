#pragma once
// The measurement clock: CLOCK_MONOTONIC in nanoseconds (a vDSO call, no
// system call), the time base of every event.

#include <time.h>

#include <cstdint>

namespace orrery::measure {

/// Nanoseconds on CLOCK_MONOTONIC.
inline uint64_t now() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

/// Nanoseconds since the epoch (only to anchor the trace in real time).
inline uint64_t realtime_now() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace orrery::measure

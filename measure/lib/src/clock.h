#pragma once
// The measurement clock. Events are stamped with the invariant TSC when the
// CPU has one (a few ns per read) and converted to CLOCK_MONOTONIC
// nanoseconds when the trace is written, through two (TSC, monotonic) pairs
// taken at MPI_Init and MPI_Finalize; otherwise CLOCK_MONOTONIC directly (a
// vDSO call). ORRERY_CLOCK=monotonic forces the latter.

#include <time.h>

#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define ORRERY_HAVE_TSC 1
#endif

namespace orrery::measure {

/// Whether now() returns TSC ticks (decided once when the library is loaded).
extern const bool g_tsc_clock;
/// The event clock when the library was loaded (the program root region's Enter).
/// Read it only after load (static initialisation order across files).
extern const uint64_t g_load_time;
/// CLOCK_MONOTONIC read right after g_load_time (a pair for rate estimates).
extern const uint64_t g_load_ns;

/// Nanoseconds on CLOCK_MONOTONIC.
inline uint64_t monotonic_ns() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

/// The event clock: TSC ticks or monotonic nanoseconds (see TimeConverter).
inline uint64_t now() noexcept {
#if defined(ORRERY_HAVE_TSC)
  if (g_tsc_clock) return __rdtsc();
#endif
  return monotonic_ns();
}

/// Nanoseconds since the epoch (only to anchor the trace in real time).
inline uint64_t realtime_now() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

/// One simultaneous reading of the event clock and CLOCK_MONOTONIC.
struct ClockPair {
  uint64_t ticks = 0;
  uint64_t ns = 0;
  static ClockPair sample() noexcept {
    ClockPair p;
    p.ticks = now();
    p.ns = monotonic_ns();
    return p;
  }
};

/// A (event clock, monotonic) pair read as tightly as the machine allows:
/// the best of a few readings bracketed by two event-clock reads. A node's
/// time base is built from two of these (one rank takes them, all ranks of
/// the node use them), so the node has one conversion, not one per process.
struct PreciseClockPair {
  ClockPair pair;
  uint64_t uncertainty_ticks = 0;  ///< half the bracket of the best reading
  static PreciseClockPair sample() noexcept;
};

/// Maps event-clock readings to monotonic nanoseconds, linear between two pairs.
class TimeConverter {
 public:
  TimeConverter() = default;
  TimeConverter(ClockPair first, ClockPair last) noexcept : first_(first) {
    if (g_tsc_clock && last.ticks > first.ticks && last.ns > first.ns) {
      ns_per_tick_ = static_cast<double>(last.ns - first.ns) / static_cast<double>(last.ticks - first.ticks);
    }
    identity_ = !g_tsc_clock;
  }
  [[nodiscard]] uint64_t to_ns(uint64_t ticks) const noexcept {
    if (identity_) return ticks;
    // Offsets from the first pair stay far below 2^53 ticks, so double keeps
    // nanosecond precision for runs of days.
    const auto delta = static_cast<double>(static_cast<int64_t>(ticks - first_.ticks)) * ns_per_tick_;
    const double ns = static_cast<double>(first_.ns) + delta;
    return ns > 0 ? static_cast<uint64_t>(ns + 0.5) : 0;
  }

 private:
  ClockPair first_;
  double ns_per_tick_ = 1.0;
  bool identity_ = true;
};

}  // namespace orrery::measure

#include "clock.h"

#include <cstdlib>
#include <cstring>

#if defined(ORRERY_HAVE_TSC)
#include <cpuid.h>
#endif

namespace orrery::measure {
namespace {

bool invariant_tsc() noexcept {
  const char* choice = std::getenv("ORRERY_CLOCK");
  if (choice != nullptr && std::strcmp(choice, "monotonic") == 0) return false;
#if defined(ORRERY_HAVE_TSC)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (static_cast<unsigned>(__get_cpuid_max(0x80000000u, nullptr)) < 0x80000007u) return false;
  __get_cpuid(0x80000007u, &eax, &ebx, &ecx, &edx);
  return (edx & (1u << 8)) != 0;  // invariant TSC: constant rate, runs in all C-states
#else
  return false;
#endif
}

}  // namespace

const bool g_tsc_clock = invariant_tsc();

PreciseClockPair PreciseClockPair::sample() noexcept {
  // A reading preempted between the two clocks would be off by the time it
  // was descheduled; the narrowest bracket of a few tries is not.
  constexpr int kTries = 32;
  PreciseClockPair best;
  best.uncertainty_ticks = UINT64_MAX;
  for (int i = 0; i < kTries; ++i) {
    const uint64_t before = now();
    const uint64_t ns = monotonic_ns();
    const uint64_t after = now();
    if (after < before) continue;
    const uint64_t half = (after - before) / 2;
    if (half < best.uncertainty_ticks) {
      best.uncertainty_ticks = half;
      best.pair = ClockPair{before + half, ns};
    }
  }
  if (best.uncertainty_ticks == UINT64_MAX) best = PreciseClockPair{ClockPair::sample(), 0};
  return best;
}
// Initialised after g_tsc_clock (same file, declaration order), so it reads the right clock.
const uint64_t g_load_time = now();
const uint64_t g_load_ns = monotonic_ns();

}  // namespace orrery::measure

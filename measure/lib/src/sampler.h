#pragma once
// Resource sampling (ORRERY_SAMPLING_INTERVAL): when the recording thread
// records an event and at least the interval has passed since the last
// sample, it reads the process's resource usage and records it with the
// event's timestamp. No signal, no thread: the hot path compares the event's
// time with a precomputed next-sample time (EventBuffer::next_sample_).

#include <cstdint>

#include "clock.h"

namespace orrery::measure {

/// One reading of the process's resources. The order is the order of the
/// OTF2 metric members (docs/trace-conventions.md).
struct ResourceSample {
  uint64_t rss_bytes = 0;                 ///< resident set size now
  uint64_t cpu_ns = 0;                    ///< user + system CPU time so far (all threads)
  uint64_t minor_faults = 0;              ///< so far
  uint64_t major_faults = 0;              ///< so far
  uint64_t voluntary_switches = 0;        ///< so far
  uint64_t involuntary_switches = 0;      ///< so far
};
inline constexpr unsigned kResourceMetrics = 6;

/// Reads the resources now (getrusage and /proc/self/statm, kept open). Fields
/// that cannot be read are 0. Not async-signal-safe; recording thread only.
void read_resources(ResourceSample& sample) noexcept;
/// Closes /proc/self/statm (MPI_Finalize).
void close_resource_files() noexcept;

/// When the next sample is due, in event-clock ticks. The interval is in
/// milliseconds; with the TSC clock the tick rate is estimated from the
/// library's load (a (ticks, ns) pair) to each sample, so it is refined as the
/// run goes on.
class SamplingSchedule {
 public:
  static constexpr uint64_t kNever = UINT64_MAX;

  SamplingSchedule() = default;
  /// `origin`: a simultaneous reading of both clocks some time ago (the
  /// library's load); `tsc`: whether event ticks are TSC ticks.
  SamplingSchedule(unsigned interval_ms, ClockPair origin, bool tsc) noexcept
      : interval_ns_(uint64_t{interval_ms} * 1000000ULL), origin_(origin), tsc_(tsc) {}

  [[nodiscard]] bool enabled() const noexcept { return interval_ns_ > 0; }
  /// After a sample taken at event time `ticks` (and `clocks` read then):
  /// the first event time at which the next one is due (kNever if disabled).
  [[nodiscard]] uint64_t next_after(uint64_t ticks, ClockPair clocks) const noexcept;
  /// Event ticks per nanosecond as estimated from `clocks` (1 without TSC).
  [[nodiscard]] double ticks_per_ns(ClockPair clocks) const noexcept;

 private:
  uint64_t interval_ns_ = 0;
  ClockPair origin_;
  bool tsc_ = false;
};

}  // namespace orrery::measure

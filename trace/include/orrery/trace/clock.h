#pragma once
// Timestamp correction, step one: put every rank on rank 0's time line by
// interpolating the clock offsets measured at init and finalize. The trace
// builder applies it to every event as it is read. Step two (clock-condition
// violations) needs messages and happens in the forward replay.

#include <cstdint>
#include <vector>

namespace orrery::analyzer {

/// A clock offset measurement: at local `time`, reference = local + `offset`.
/// Raw time stamps (ticks) must lie in [0, kTimeLimit): 2^62 ticks is 146
/// years at a nanosecond, and every difference and sum of two such times the
/// readers and replays form then fits an int64. A corrupt file's time stamp
/// beyond it is an input error, not an overflow.
inline constexpr int64_t kTimeLimit = int64_t{1} << 62;
/// Clock offsets (and the correction interpolated from them) are bounded
/// by 2^60 ticks (36 years at a nanosecond) for the same reason.
inline constexpr int64_t kOffsetLimit = int64_t{1} << 60;

struct ClockOffsetPoint {
  int64_t time = 0;
  int64_t offset = 0;
};

/// Local time → reference time, linear through the first and the last
/// measurement (extrapolated outside): drift between two ping-pongs is all
/// one can know. Without measurements the trace is taken as synchronized.
class ClockMapping {
 public:
  ClockMapping() = default;
  explicit ClockMapping(std::vector<ClockOffsetPoint> points);
  [[nodiscard]] int64_t operator()(int64_t local) const {
    if (!active_) return local;
    // Clamped: a slope from corrupt offsets must not overflow the conversion
    // (a real correction is microseconds to seconds, far inside the bound).
    constexpr auto kLimit = static_cast<double>(kOffsetLimit);
    const double correction = base_offset_ + slope_ * static_cast<double>(local - base_time_);
    return local + static_cast<int64_t>(correction < -kLimit ? -kLimit : correction > kLimit ? kLimit : correction);
  }

 private:
  bool active_ = false;
  int64_t base_time_ = 0;
  double base_offset_ = 0;
  double slope_ = 0;
};

}  // namespace orrery::analyzer

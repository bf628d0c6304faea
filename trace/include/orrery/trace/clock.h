#pragma once
// Timestamp correction, step one: put every rank on rank 0's time line by
// interpolating the clock offsets measured at init and finalize. The trace
// builder applies it to every event as it is read. Step two (clock-condition
// violations) needs messages and happens in the forward replay.

#include <cstdint>
#include <vector>

namespace orrery::analyzer {

/// A clock offset measurement: at local `time`, reference = local + `offset`.
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
    return local + static_cast<int64_t>(base_offset_ +
                                        slope_ * static_cast<double>(local - base_time_));
  }

 private:
  bool active_ = false;
  int64_t base_time_ = 0;
  double base_offset_ = 0;
  double slope_ = 0;
};

}  // namespace orrery::analyzer

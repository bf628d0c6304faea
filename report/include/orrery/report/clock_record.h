#pragma once
// The clock record of a report (optional; docs/design.md §5 additions, readers must
// accept its absence): the root attribute `clock`, one line saying which
// clock the measurement used, its per-node conversion and the offsets with
// their uncertainty; and the table `/clock_corrections`, one row per rank:
// how many receives the analyzer found before their send (`violations`),
// how many it moved (`corrected`), the time the corrections inserted
// (`moved`, seconds) and the largest move of any event (`max_shift`,
// seconds). Counts are float64 like the cube's counts.

#include <optional>
#include <string>
#include <vector>

namespace orrery::report {

/// One rank's clock corrections.
struct ClockCorrectionRow {
  int32_t rank = 0;
  double violations = 0;
  double corrected = 0;
  double moved = 0;      ///< seconds
  double max_shift = 0;  ///< seconds
};

/// What a report says about its clocks.
struct ClockRecord {
  std::string clock;  ///< one line; empty if unknown
  std::vector<ClockCorrectionRow> corrections;
};

/// Adds the record to an existing report (written and closed). Throws InputError.
void write_clock_record(const std::string& path, const ClockRecord& record);
/// "Clock       <description>\nCorrections ..." lines for terminal tools.
[[nodiscard]] std::string clock_record_text(const ClockRecord& record);
/// The record of a report; nullopt if it has none (older reports, other producers).
[[nodiscard]] std::optional<ClockRecord> read_clock_record(const std::string& path);

}  // namespace orrery::report

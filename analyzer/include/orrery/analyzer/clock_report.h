#pragma once
// What the analysis says about clocks: which clock the measurement used and
// how it converted and aligned it (from run.json's "clock", written by the
// measurement: measure/lib/src/node_clock.h), and per rank what the
// clock-condition correction (clock_condition.h) moved. Printed in the
// summary and stored in report.h5 (report/clock_record.h).

#include <ostream>
#include <string>
#include <vector>

#include "orrery/analyzer/clock_condition.h"
#include "orrery/report/clock_record.h"

namespace orrery::analyzer {

/// One line about the experiment's clock from EXP/run.json; empty if the
/// experiment does not say (older experiments, other producers).
[[nodiscard]] std::string describe_clock(const std::string& experiment);

/// The report's clock record from the gathered per-rank corrections (ticks
/// converted with `seconds_per_tick`).
[[nodiscard]] report::ClockRecord clock_record(const std::string& description,
                                               const std::vector<ClockCorrection>& per_rank,
                                               double seconds_per_tick);

/// The summary's lines: "Clock: ..." and "Clock corrections: ...".
void print_clock_summary(std::ostream& out, const report::ClockRecord& record, bool correcting);

}  // namespace orrery::analyzer

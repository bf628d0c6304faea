#pragma once
// The analyzer's closing findings: after the summary, the top wait states
// with their root causes, read back from the report just written
// (orrery/report/findings.h, the same as `orrery findings`).

#include <iosfwd>
#include <string>

#include "orrery/analyzer/replay_delay.h"

namespace orrery::analyzer {

/// Prints the top findings of the report at `report_path` (nothing if the
/// path is empty: no report written), and a warning if the delay analysis
/// cut a propagation chain short.
void print_findings(std::ostream& out, const std::string& report_path,
                    const DelayStatistics& delay, bool delay_analysis, std::size_t top = 3);

}  // namespace orrery::analyzer

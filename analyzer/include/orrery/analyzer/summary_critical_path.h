#pragma once
// The critical path in orrery-analyze's closing summary: its length, where
// it ends, and the call paths with the most time on it.

#include <ostream>
#include <vector>

#include "orrery/analyzer/balance_metrics.h"
#include "orrery/analyzer/replay_critical_path.h"
#include "orrery/report/cube.h"

namespace orrery::analyzer {

void print_critical_path(std::ostream& out, const report::CubeHeader& header,
                         const CriticalPathStatistics& statistics, double seconds_per_tick,
                         const std::vector<BalanceMetrics::PathEntry>& entries);

}  // namespace orrery::analyzer

#include "orrery/analyzer/summary_critical_path.h"

#include <cstdio>

#include "orrery/analyzer/summary.h"
#include "orrery/report/trees.h"

namespace orrery::analyzer {

void print_critical_path(std::ostream& out, const report::CubeHeader& header,
                         const CriticalPathStatistics& statistics, double seconds_per_tick,
                         const std::vector<BalanceMetrics::PathEntry>& entries) {
  if (statistics.last_rank == kNone || entries.empty()) return;
  char line[160];
  std::snprintf(line, sizeof line, "%.6f s (ends on rank %u; %llu moves between processes%s)",
                static_cast<double>(statistics.length) * seconds_per_tick, statistics.last_rank,
                static_cast<unsigned long long>(statistics.hops),
                statistics.complete ? "" : ", cut short: inconsistent times");
  out << "\nCritical path: " << line << "\n";
  for (const auto& entry : entries) {
    const std::string where =
        entry.location < header.locations.size() ? header.locations[entry.location].name : "?";
    std::snprintf(line, sizeof line, "  %.6f s  ", entry.seconds);
    out << line << report::callpath_label(header, entry.callpath) << ", mostly on " << where;
    if (entry.above_mean > 0) {
      std::snprintf(line, sizeof line, " (%.6f s above its mean over processes)", entry.above_mean);
      out << line;
    }
    out << "\n";
  }
  out << "  (orrery stat REPORT -m critical_path; performance_impact: the gain of balancing)\n";
}

}  // namespace orrery::analyzer

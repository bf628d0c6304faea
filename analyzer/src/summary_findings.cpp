#include "orrery/analyzer/summary_findings.h"

#include <ostream>

#include "orrery/error.h"
#include "orrery/report/findings.h"

namespace orrery::analyzer {

void print_findings(std::ostream& out, const std::string& report_path,
                    const DelayStatistics& delay, bool delay_analysis, std::size_t top) {
  if (!delay.converged) {
    out << "Warning: the delay analysis stopped after " << delay.rounds
        << " propagation rounds; long-term delay costs of longer chains of waits are "
           "incomplete.\n";
  }
  if (report_path.empty() || !delay_analysis) return;
  try {
    const auto findings = report::root_cause_findings(report_path, top);
    if (findings.empty()) return;
    out << "\nTop findings (root causes; orrery findings " << report_path << " for more):\n"
        << report::findings_text(findings);
  } catch (const Error& error) {
    out << "Findings not available: " << error.what() << "\n";
  }
}

}  // namespace orrery::analyzer

#include "root_cause_source.h"

#include "orrery/report/findings.h"

namespace orrery::viewer {

std::vector<Finding> RootCauseFindings::findings(ReportData& report) {
  std::vector<Finding> out;
  const auto& locations = report.header().locations;
  const auto location_of = [&](int rank) -> int64_t {
    for (std::size_t l = 0; l < locations.size(); ++l) {
      if (locations[l].rank == rank && locations[l].thread == 0) return static_cast<int64_t>(l);
    }
    return -1;
  };
  for (const report::RootCauseFinding& found : report::root_cause_findings(path_, top_)) {
    if (found.causes.empty()) continue;  // the wait-state findings already list it
    const report::RootCause& cause = found.causes.front();
    Finding f;
    f.source = name();
    f.title = "Root cause of " + found.title + ": " + cause.path;
    // The page shows a finding's metric with its total (and selects it):
    // the pattern's aggregate delay costs, at the top root cause.
    f.metric = found.delay_metric;
    f.value = found.delay_costs;
    f.unit = "sec";
    f.share = found.share;
    f.callpath = static_cast<int64_t>(cause.callpath);
    f.callpath_value = cause.short_term + cause.long_term;
    for (const report::RankValue& r : cause.ranks) {
      const int64_t l = location_of(r.rank);
      if (l < 0) continue;
      f.locations.push_back(l);
      f.location_values.push_back(r.seconds);
    }
    char why[320];
    std::snprintf(why, sizeof why,
                  "%.3f s of %s (%.0f%% of it explained by delay costs) comes from here: %.3f s "
                  "directly, %.3f s passed on through further waits. Estimated gain %.3f s (%s).",
                  found.waiting, found.title.c_str(), 100.0 * found.explained, cause.short_term,
                  cause.long_term, found.gain, found.gain_basis.c_str());
    f.why = why;
    f.advice = found.advice;
    f.score = f.value;  // ranked with the wait states by the seconds at stake
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace orrery::viewer

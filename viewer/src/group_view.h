#pragma once
// Opens the groups of `orrery view --baseline … --candidate …`: every run's
// report, each group's mean report (for the trees) and the group comparison
// of report/run_groups.h (for the Groups view).

#include <memory>
#include <string>
#include <vector>

#include "group_statistics.h"
#include "orrery/report/run_groups.h"
#include "report_data.h"

namespace orrery::viewer {

/// The two groups as the viewer serves them.
struct OpenedGroups {
  std::shared_ptr<ReportData> baseline_mean;   ///< the united trees, each value the baseline runs' mean
  std::shared_ptr<ReportData> candidate_mean;  ///< the same trees, the candidate runs' mean
  std::shared_ptr<GroupStatistics> statistics;
};

/// Opens both groups (two or more reports each; each report once). Throws
/// UsageError for a group of one or a report given twice, InputError for an
/// unreadable report, runs of different programs (unless `allow_different_programs`)
/// or reports of different analyses (as `orrery compare` does).
[[nodiscard]] OpenedGroups open_groups(const std::vector<std::string>& baseline,
                                       const std::vector<std::string>& candidate,
                                       const report::GroupTest& test, bool allow_different_programs);

}  // namespace orrery::viewer

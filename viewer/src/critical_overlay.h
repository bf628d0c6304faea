#pragma once
// The critical path in the timeline: per rank, the call paths of the report
// with critical-path time there (the `critical_path` metric with its
// sub-metrics, docs/design.md §4), as chains of region names so that the
// trace's instances of them can be outlined (callpath_match.h).

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "report_data.h"

namespace orrery::viewer {

/// Rank -> chains of the call paths with critical-path time on its MPI thread
/// (thread 0), the `per_rank` largest first; roots (the whole program) are left
/// out. Empty if the report has no `critical_path` metric.
[[nodiscard]] std::map<uint32_t, std::vector<std::vector<std::string>>> critical_path_chains(
    ReportData& report, std::size_t per_rank);

}  // namespace orrery::viewer

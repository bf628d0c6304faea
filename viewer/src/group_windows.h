#pragma once
// The function groups over time: per window of the run, each group's time
// per location, from the trace (the 3-D load-imbalance view's time axis).

#include <cstddef>

#include <nlohmann/json.hpp>

#include "orrery/report/cube.h"
#include "orrery/report/groups.h"
#include "timeline_data.h"

namespace orrery::viewer {

/// `windows` equal windows of the trace's duration; per window, group (the
/// report's rows) and location, the exclusive time of the group's functions
/// there (a top group: its second-level groups'), from the trace's segments.
/// A trace region joins the group its report region (same name) has by the
/// built-in grouping (report::default_group_of); regions in no group (tiny
/// ones, or a grouping file's) count as `unassigned`. Locations without a
/// rank in the trace (threads) are null.
/// {windows: [[t0, t1]], values: [window][group][location], unassigned: seconds}.
[[nodiscard]] nlohmann::json group_windows(TimelineSource& source, const report::CubeHeader& header,
                                           const report::FunctionGroups& groups, std::size_t windows);

}  // namespace orrery::viewer

#pragma once
// The short summary orrery-analyze prints at the end: total time, the top
// wait states with their call paths and most affected ranks, and where the
// report is.

#include <ostream>
#include <string>

#include "orrery/analyzer/replay.h"
#include "orrery/patterns/registry.h"
#include "orrery/report/cube.h"

namespace orrery::analyzer {

/// Inclusive value of metric `row` (over its metric subtree) summed over all
/// call paths and locations.
[[nodiscard]] double metric_total(const report::Cube& cube, std::size_t row);

/// "main > solve > MPI_Recv" for a call path row.
[[nodiscard]] std::string callpath_name(const report::CubeHeader& header, std::size_t callpath);

void print_summary(std::ostream& out, const report::Cube& cube,
                   const patterns::PatternRegistry& registry, const ReplayStatistics& statistics,
                   const std::string& report_path, std::size_t top = 5);

}  // namespace orrery::analyzer

#pragma once
// The merge on the master: gathers every rank's call tree and severities,
// unifies the call trees by region path, and builds the cube (DESIGN §5).

#include <mpi.h>

#include "orrery/analyzer/call_tree.h"
#include "orrery/analyzer/trace.h"
#include "orrery/patterns/registry.h"
#include "orrery/report/cube.h"

namespace orrery::analyzer {

/// Collective over `world`; returns the whole cube on rank 0 and an empty
/// cube elsewhere. Call paths come out in pre-order.
[[nodiscard]] report::Cube merge_on_root(const CallTree& tree,
                                         const patterns::SeverityMap& severities,
                                         const patterns::PatternRegistry& registry,
                                         const Definitions& definitions, MPI_Comm world);

}  // namespace orrery::analyzer

#pragma once
// Which time category of the metric table a region's time belongs to,
// decided by the region's name (MPI_<Op>), paradigm and role.

#include <string_view>

#include "orrery/trace/trace.h"

namespace orrery::patterns {

/// The name of the time metric a region instance's exclusive time goes to.
/// `moves_data` is false for a point-to-point call whose messages carried
/// no bytes (counted as synchronization).
[[nodiscard]] std::string_view time_category(const analyzer::RegionDef& region, bool has_messages,
                                             bool moves_data);

}  // namespace orrery::patterns

#pragma once
// One function group's time over the locations (docs/report.md `orrery
// imbalance`): total, mean, maximum and where, and the imbalance
// (max − mean) / max. Used by `orrery imbalance` and the viewer's
// function-groups view, so both show the same numbers.

#include <cstddef>

#include "orrery/report/groups.h"

namespace orrery::report {

struct GroupLoad {
  double total = 0;
  double mean = 0;  ///< over the locations with a value (NaN: a location without a trace)
  double max = 0;
  std::size_t max_location = 0;
  /// (max − mean) / max: the share of the slowest location's time the others lack; 0 if max is 0.
  double imbalance = 0;
};

/// The load of group row `group` of `groups`.
[[nodiscard]] GroupLoad group_load(const FunctionGroups& groups, std::size_t group);

}  // namespace orrery::report

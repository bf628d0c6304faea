#include "orrery/report/group_load.h"

#include <cmath>

namespace orrery::report {

GroupLoad group_load(const FunctionGroups& groups, std::size_t group) {
  GroupLoad load;
  std::size_t present = 0;
  for (std::size_t l = 0; l < groups.locations; ++l) {
    const double value = groups.time[group * groups.locations + l];
    if (std::isnan(value)) continue;
    load.total += value;
    ++present;
    if (present == 1 || value > load.max) {
      load.max = value;
      load.max_location = l;
    }
  }
  load.mean = present == 0 ? 0 : load.total / static_cast<double>(present);
  load.imbalance = load.max > 0 ? (load.max - load.mean) / load.max : 0;
  return load;
}

}  // namespace orrery::report

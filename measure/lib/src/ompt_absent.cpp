// Built instead of ompt_tool.cpp where omp-tools.h was not found: no
// OpenMP measurement, and the rest of the library says so.

#include "ompt_state.h"

namespace orrery::measure {

bool openmp_tool_active() noexcept { return false; }
const std::string& openmp_runtime_version() noexcept {
  static const std::string none;
  return none;
}

uint64_t openmp_last_team_end() noexcept { return 0; }

}  // namespace orrery::measure

#pragma once
// What the OpenMP tool (ompt_tool.cpp) tells the rest of the measurement.

#include <string>

namespace orrery::measure {

/// The OpenMP runtime started the tool and accepted its callbacks.
bool openmp_tool_active() noexcept;
/// The runtime's version string as it gave it to ompt_start_tool ("" if none).
const std::string& openmp_runtime_version() noexcept;
/// When the last parallel region of the MPI thread ended (event clock; 0: none):
/// the workers' regions still open at MPI_Finalize end there.
uint64_t openmp_last_team_end() noexcept;

}  // namespace orrery::measure

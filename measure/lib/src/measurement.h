#pragma once
// The measurement's life cycle: started right after PMPI_Init*, stopped (and
// the experiment written) right before PMPI_Finalize.

#include <cstdint>

#include "mpi_catalog.h"

namespace orrery::measure {

/// After PMPI_Init/PMPI_Init_thread succeeded on the calling thread; `enter_time`
/// is when the application called MPI_Init.
void start_measurement(FunctionId init_fn, uint64_t enter_time) noexcept;
/// Before PMPI_Finalize: clock offsets, unification, trace and reports.
void stop_measurement(FunctionId finalize_fn, uint64_t enter_time) noexcept;
/// Before PMPI_Abort: writes EXP/aborted.json; never blocks on other ranks.
void abort_measurement(int error_code) noexcept;

}  // namespace orrery::measure

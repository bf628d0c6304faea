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
/// A rank that ends without MPI_Finalize (exit, return from main, SIGTERM,
/// SIGINT): writes its events so far as a rank-local OTF2 archive
/// EXP/incomplete/rank-<r>/ plus EXP/incomplete/rank-<r>.json. Calls no MPI
/// function and never waits for other ranks.
void emergency_stop(const char* reason, int signal_number) noexcept;
/// At MPI_Init: atexit hook and SIGTERM/SIGINT handlers calling emergency_stop
/// (signal handlers only where the program has none).
void install_exit_guard() noexcept;
/// At MPI_Finalize/MPI_Abort: the signal handlers are taken back.
void remove_exit_guard() noexcept;
/// Before PMPI_Abort: writes EXP/aborted.json; never blocks on other ranks.
void abort_measurement(int error_code) noexcept;

}  // namespace orrery::measure

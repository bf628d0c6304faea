#pragma once
// MPI_Init* and MPI_Finalize as synchronizations of all ranks: MPI_Init
// returns when every rank has started, MPI_Finalize when every rank has
// arrived, but no trace records them as collectives. The reader makes each
// instance a collective instance over the world communicator (kind kInit or
// kFinalize), so the collective replay carries them like any other and the
// init_completion / finalize_wait patterns apply N x N's formula.

#include <cstdint>

#include "orrery/trace/trace.h"
#include "orrery/trace/trace_builder.h"

namespace orrery::analyzer {

/// The world communicator: the one whose members are all ranks in order
/// (preferably named MPI_COMM_WORLD); kNone if the trace defines none.
[[nodiscard]] uint32_t world_comm(const Definitions& definitions);

/// Tells `builder` to make the instances of MPI_Init, MPI_Init_thread and
/// MPI_Finalize collectives over the world communicator (nothing if there
/// is none, or for a single rank).
void synchronize_init_and_finalize(const Definitions& definitions, TraceBuilder& builder);

}  // namespace orrery::analyzer

#pragma once
// MPI calls made on OpenMP worker threads (MPI_THREAD_MULTIPLE), recorded on
// the thread's own location (thread_locations.h). Every call is a region
// there; blocking point-to-point calls (the generated wrappers' fast-path
// functions: MPI_Send and its modes, MPI_Recv) also record their MpiSend /
// MpiRecv, so the analysis matches their messages. Other calls' messages,
// requests and collectives are bookkept only on the MPI thread: on a worker
// they are regions without events. Communicators are looked up without a
// cache (CommRegistry::shared_id).

#include <mpi.h>

#include <cstdint>

#include "mpi_catalog.h"
#include "thread_locations.h"

namespace orrery::measure {

/// Blocking send on a worker: Enter and MpiSend at one time; returns the region (0: not recorded).
uint32_t worker_send_enter(FunctionId fn, int dest, int tag, MPI_Comm comm, int count, MPI_Datatype type) noexcept;
/// Blocking receive on a worker: Enter now; returns the region (0: not recorded).
uint32_t worker_recv_enter(FunctionId fn) noexcept;
/// After PMPI returned `rc`: MpiRecv (unless nothing was received) and Leave.
void worker_recv_leave(uint32_t region, int rc, int source, MPI_Comm comm, const MPI_Status* status) noexcept;

}  // namespace orrery::measure

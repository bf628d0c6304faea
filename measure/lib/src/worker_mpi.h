#pragma once
// MPI calls made on OpenMP worker threads (MPI_THREAD_MULTIPLE), recorded on
// the thread's own location (thread_locations.h). Every call is a region
// there; blocking point-to-point calls (the generated wrappers' fast-path
// functions: MPI_Send and its modes, MPI_Recv) also record their MpiSend /
// MpiRecv here, so the analysis matches their messages. MPI_Sendrecv and
// the request calls (Isend/Irecv and their persistent forms, Start, the
// Wait and Test families, Request_free, Cancel) run the MPI thread's
// handlers (mpi_handlers.h) on the worker's own location (recorder.h:
// worker_with_events), with the process's one request table: a request
// posted on one thread and completed on another has its completion on the
// thread that completed it (mpi_requests.h). Collectives (blocking and non-blocking) record their
// MpiCollectiveBegin/End, NbcRequest/NbcComplete there as on the MPI thread:
// the process took part in the instance on the thread that called it;
// so do matched probes and receives (MPI_Mprobe, MPI_Mrecv and their
// non-blocking forms). Communicators a worker creates or frees are
// registered as on the MPI thread, and looked up under the registry's mutex
// (CommRegistry::shared_id). MPI_Probe/Iprobe, one-sided and I/O calls of a
// worker are regions without events.

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

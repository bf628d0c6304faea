// MPI calls on OpenMP worker threads (worker_mpi.h).

#include "worker_mpi.h"

#include "clock.h"
#include "comm_registry.h"
#include "mpi_handlers.h"

namespace orrery::measure {
namespace {

/// The region of MPI function `fn` in the shared table (kFunctions' names are static).
uint32_t worker_region(FunctionId fn) noexcept {
  const FunctionInfo& info = kFunctions[fn];
  return omp_region(OmpConstruct{info.name, mpi_region_role(info), Paradigm::kMpi}, nullptr);
}

}  // namespace

uint32_t worker_mpi_enter(FunctionId fn, uint64_t& time) noexcept {
  const bool query = kFunctions[fn].category == Category::kQuery;
  if (!worker_records()) {
    // A thread not traced (--no-openmp, pthreads): the analysis needs to
    // know that messages and collectives may be missing from the trace.
    if (!query) g_other_thread_mpi_calls.fetch_add(1, std::memory_order_relaxed);
    return 0;
  }
  // Queries (MPI_Wtime, MPI_Comm_rank, ...) are not regions, as on the MPI thread.
  if (query && !g_state.settings.trace_queries) return 0;
  WorkerLocation& w = *t_worker;
  ++w.mpi_calls;
  const uint32_t region = worker_region(fn);
  time = now();
  worker_enter(w, region, time);
  return region;
}

void worker_mpi_leave(uint32_t region, uint64_t time) noexcept {
  if (region == 0 || !worker_records()) return;
  worker_leave(*t_worker, region, time != 0 ? time : now());
}

WorkerLocation* worker_with_events(Category category) noexcept {
  switch (category) {
    case Category::kSendrecv:
    case Category::kIsend:
    case Category::kIrecv:
    case Category::kSendInit:
    case Category::kRecvInit:
    case Category::kStart:
    case Category::kStartall:
    case Category::kWait:
    case Category::kWaitall:
    case Category::kWaitany:
    case Category::kWaitsome:
    case Category::kTest:
    case Category::kTestall:
    case Category::kTestany:
    case Category::kTestsome:
    case Category::kRequestFree:
    case Category::kCancel:
    case Category::kColl:
    case Category::kIcoll:
    case Category::kMprobe:
    case Category::kImprobe:
    case Category::kMrecv:
    case Category::kImrecv:
    case Category::kCommNew:   // registered (comm_registry.h); no events
    case Category::kCommFree: return t_worker;
    default: return nullptr;  // MPI_Probe/Iprobe, one-sided, I/O: regions only
  }
}

void worker_record(WorkerLocation& worker, const Record& record) noexcept { worker.buffer->append(record); }

uint32_t worker_send_enter(FunctionId fn, int dest, int tag, MPI_Comm comm, int count, MPI_Datatype type) noexcept {
  if (!worker_records()) return 0;
  WorkerLocation& w = *t_worker;
  ++w.mpi_calls;
  const uint64_t time = now();
  const uint32_t region = worker_region(fn);
  w.stack.push_back(region);
  if (dest == MPI_PROC_NULL) {
    w.buffer->enter(time, region);
  } else {
    const uint32_t id = g_comms.shared_id(comm);
    w.buffer->enter_send(time, region, static_cast<uint32_t>(dest) + g_comms.peer_offset(id), id,
                         static_cast<uint32_t>(tag), bytes_of(count, type));
  }
  return region;
}

uint32_t worker_recv_enter(FunctionId fn) noexcept {
  uint64_t time = 0;
  return worker_mpi_enter(fn, time);
}

void worker_recv_leave(uint32_t region, int rc, int source, MPI_Comm comm, const MPI_Status* status) noexcept {
  if (region == 0 || !worker_records()) return;
  WorkerLocation& w = *t_worker;
  const uint64_t time = now();
  const bool message = rc == MPI_SUCCESS && source != MPI_PROC_NULL && status->MPI_SOURCE != MPI_PROC_NULL;
  if (!message) {
    worker_leave(w, region, time);
    return;
  }
  const uint32_t id = g_comms.shared_id(comm);
  const uint32_t peer = static_cast<uint32_t>(status->MPI_SOURCE) + g_comms.peer_offset(id);
  const auto tag = static_cast<uint32_t>(status->MPI_TAG);
  const uint64_t bytes = received_bytes(*status);
  if (!w.stack.empty() && w.stack.back() == region) {
    w.stack.pop_back();
    w.buffer->recv_leave(time, region, peer, id, tag, bytes);
  } else {
    w.buffer->message(RecordKind::kMpiRecv, time, peer, id, tag, bytes);
    ++w.unmatched_leaves;
  }
}

}  // namespace orrery::measure

// The dispatch behind every generated wrapper (mpi_handlers.h): what each
// category of MPI call records before and after the PMPI call. What a
// collective moves is in collective_bytes.cpp, request tracking in
// mpi_requests.cpp.

#include "mpi_handlers.h"

#include "collective_bytes.h"
#include "comm_registry.h"
#include "mpi_function_ids.h"
#include "mpi_requests.h"

namespace orrery::measure {
namespace {

void record_recv(const Call& call, uint32_t comm, const MPI_Status* status) noexcept {
  if (!call.recording() || status == nullptr || status->MPI_SOURCE == MPI_PROC_NULL) return;
  call.emit_message(RecordKind::kMpiRecv, call.stamp(),
                          static_cast<uint32_t>(status->MPI_SOURCE) + g_comms.peer_offset(comm), comm,
                          static_cast<uint32_t>(status->MPI_TAG), received_bytes(*status));
}

void record_send(const Call& call, int dest, MPI_Comm comm, int tag, int count, MPI_Datatype type) noexcept {
  if (!call.recording() || dest == MPI_PROC_NULL) return;
  const uint32_t id = comm_of(call, comm);
  call.emit_message(RecordKind::kMpiSend, call.enter_time(), static_cast<uint32_t>(dest) + g_comms.peer_offset(id),
                          id, static_cast<uint32_t>(tag), bytes_of(count, type));
}

void collective_end(const Call& call, const MpiArgs& a) noexcept {
  if (!call.recording()) return;
  const CollectiveBytes c = collective_bytes(kFunctions[call.function()].op, a);
  Record r;
  r.kind = RecordKind::kCollEnd;
  r.time = call.stamp();
  r.op = c.op;
  r.comm = comm_of(call, a.comm);
  r.root = c.root;
  r.bytes = c.sent;
  r.bytes_received = c.received;
  call.emit(r);
}

// Deferred calls (tests, iprobes): did this one complete or find something?
bool succeeded(Category category, const MpiArgs& a) noexcept {
  switch (category) {
    case Category::kTest:
    case Category::kTestall:
    case Category::kIprobe:
    case Category::kImprobe: return a.flag != nullptr && *a.flag != 0;
    case Category::kTestany: return *a.flag != 0 && *a.index != MPI_UNDEFINED;
    case Category::kTestsome: return *a.outcount != MPI_UNDEFINED && *a.outcount > 0;
    default: return true;
  }
}

}  // namespace

CommRegistry g_comms;

uint32_t comm_of(const Call& call, MPI_Comm comm) noexcept {
  return call.worker() != nullptr ? g_comms.shared_id(comm) : g_comms.id(comm);
}
TypeSizeSlot g_type_sizes[64];

uint64_t type_size_slow(MPI_Datatype type) noexcept {
  if (type == MPI_DATATYPE_NULL) return 0;
  TypeSizeSlot& slot = g_type_sizes[(reinterpret_cast<uintptr_t>(type) >> 4) & 63];
  int size = 0;
  PMPI_Type_size(type, &size);
  const uint64_t bytes = size > 0 ? static_cast<uint64_t>(size) : 0;
  if (slot.type != type) {
    int integers = 0, addresses = 0, types = 0, combiner = MPI_COMBINER_NAMED + 1;
    PMPI_Type_get_envelope(type, &integers, &addresses, &types, &combiner);
    slot = {type, bytes, combiner == MPI_COMBINER_NAMED};
  }
  return bytes;
}

void init_handlers() noexcept {
  int provided = MPI_THREAD_SINGLE;
  PMPI_Query_thread(&provided);
  share_requests(provided == MPI_THREAD_MULTIPLE && !g_state.profile);
  try {
    g_comms.init(g_state.definitions, g_state.world_rank, g_state.world_size);
  } catch (...) {
    ++g_state.anomalies.lazily_registered_comms;
  }
}

void finish_handlers() noexcept {
  g_comms.finish();
  clear_requests();
}

void before_call(Call& call, MpiArgs& a) noexcept {
  switch (kFunctions[call.function()].category) {
    case Category::kSend:
    case Category::kSendrecv:
      record_send(call, a.dest, a.comm, a.stag >= 0 ? a.stag : a.tag, a.scount, a.stype);
      break;
    case Category::kColl:
      if (call.recording()) {
        Record begin;
        begin.kind = RecordKind::kCollBegin;
        begin.time = call.enter_time();
        call.emit(begin);
      }
      break;
    case Category::kRequestFree:
      forget_request(call, a.request_before);
      break;
    case Category::kCancel:
      mark_cancelled(call, a.request_before);
      break;
    case Category::kCommFree:
      g_comms.on_freed(a.comm, t_is_recorder);
      break;
    default: break;
  }
}

void after_call(Call& call, MpiArgs& a, int rc) noexcept {
  const Category category = kFunctions[call.function()].category;
  if (rc != MPI_SUCCESS) return;
  if (is_deferred(category)) {
    if (succeeded(category, a)) {
      call.commit();
    } else {
      if (category == Category::kTest) tested(call, &a.request_before, 1);
      if (category == Category::kTestall || category == Category::kTestany || category == Category::kTestsome) {
        tested(call, a.requests_before, a.nreq);
      }
      return;
    }
  }
  switch (category) {
    case Category::kRecv:
    case Category::kSendrecv:
      if (a.source != MPI_PROC_NULL) record_recv(call, comm_of(call, a.comm), a.status);
      break;
    case Category::kIsend: track(call, *a.request, p2p_request(call, a, true, false)); break;
    case Category::kIrecv: track(call, *a.request, p2p_request(call, a, false, false)); break;
    case Category::kSendInit: track(call, *a.request, p2p_request(call, a, true, true)); break;
    case Category::kRecvInit: track(call, *a.request, p2p_request(call, a, false, true)); break;
    case Category::kStart: start_persistent(call, a.request_before); break;
    case Category::kStartall:
      for (int i = 0; i < a.nreq; ++i) start_persistent(call, a.requests_before[i]);
      break;
    case Category::kWait:
    case Category::kTest: complete(call, a.request_before, a.status); break;
    case Category::kWaitall:
    case Category::kTestall: complete_all(call, a); break;
    case Category::kWaitany:
    case Category::kTestany:
      if (*a.index != MPI_UNDEFINED && *a.index >= 0 && *a.index < a.nreq) {
        complete(call, a.requests_before[*a.index], a.status);
      }
      break;
    case Category::kWaitsome:
    case Category::kTestsome:
      if (*a.outcount != MPI_UNDEFINED) complete_some(call, a);
      break;
    case Category::kMprobe:
    case Category::kImprobe:
      if (*a.message != MPI_MESSAGE_NULL && *a.message != MPI_MESSAGE_NO_PROC) {
        remember_message(*a.message, comm_of(call, a.comm));
      }
      break;
    case Category::kMrecv:
      if (a.message_before != MPI_MESSAGE_NO_PROC) record_recv(call, message_comm(a.message_before), a.status);
      break;
    case Category::kImrecv:
      if (a.message_before != MPI_MESSAGE_NO_PROC) {
        RequestInfo info;
        info.kind = RequestInfo::Kind::kIrecv;
        info.comm = message_comm(a.message_before);
        track(call, *a.request, info);
      }
      break;
    case Category::kColl: collective_end(call, a); break;
    case Category::kIcoll: start_collective(call, a); break;
    case Category::kCommNew:
      if (a.newcomm == nullptr) break;
      if (call.function() == fn::MPI_Comm_idup) {
        g_comms.on_idup(a.comm, *a.newcomm, t_is_recorder);
      } else {
        g_comms.on_created(a.comm, *a.newcomm, kFunctions[call.function()].name, t_is_recorder);
      }
      break;
    default: break;
  }
}

}  // namespace orrery::measure

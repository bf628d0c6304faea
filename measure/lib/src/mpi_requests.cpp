// Request tracking (mpi_requests.h).

#include "mpi_requests.h"

#include <mutex>
#include <unordered_map>

#include "collective_bytes.h"
#include "comm_registry.h"
#include "thread_locations.h"

#if defined(OPEN_MPI)
// Open MPI's one completed request object, handed out for operations that
// complete at once (eager sends, MPI_PROC_NULL peers).
extern "C" char ompi_request_empty;
#endif

namespace orrery::measure {
namespace {

bool is_shared_request(MPI_Request request) noexcept {
#if defined(OPEN_MPI)
  return static_cast<const void*>(request) == static_cast<const void*>(&ompi_request_empty);
#else
  (void)request;
  return false;
#endif
}

// The requests of every thread of the process, with ids unique in the
// process: a request posted on one thread may be completed on another
// (MPI_THREAD_MULTIPLE), whose location then records the completion with
// the id the post had. Behind a mutex when threads may call MPI at once
// (g_requests_shared); else, as in MPI-only programs, without one.
RequestTable g_requests;
uint64_t g_next_request_id = 1;
bool g_requests_shared = false;
std::mutex g_requests_mutex;
// Matched message -> comm id. A message may be matched (MPI_Mprobe) on one
// thread and received (MPI_Mrecv) on another: shared, behind a mutex (taken
// only by these calls).
std::unordered_map<MPI_Message, uint32_t> g_messages;
std::mutex g_messages_mutex;

/// Holds the request table's mutex for a scope if threads share it.
class RequestsLock {
 public:
  RequestsLock() noexcept {
    if (g_requests_shared) g_requests_mutex.lock();
  }
  ~RequestsLock() {
    if (g_requests_shared) g_requests_mutex.unlock();
  }
  RequestsLock(const RequestsLock&) = delete;
  RequestsLock& operator=(const RequestsLock&) = delete;
};

RequestTable& requests_of(const Call& /*call*/) noexcept { return g_requests; }
uint64_t next_request_id(const Call& /*call*/) noexcept { return g_next_request_id++; }

Record p2p(RecordKind kind, uint64_t time, int peer, uint32_t comm, int tag, uint64_t bytes) noexcept {
  Record r;
  r.kind = kind;
  r.time = time;
  r.peer = static_cast<uint32_t>(peer) + g_comms.peer_offset(comm);
  r.comm = comm;
  r.tag = static_cast<uint32_t>(tag);
  r.bytes = bytes;
  return r;
}

Record request_event(RecordKind kind, uint64_t time, uint64_t id) noexcept {
  Record r;
  r.kind = kind;
  r.time = time;
  r.request = id;
  return r;
}

}  // namespace

// Records the post of a (possibly persistent) point-to-point request.
void post(const Call& call, RequestInfo& info) noexcept {
  info.active = true;
  if (info.kind == RequestInfo::Kind::kIgnored) return;
  info.id = next_request_id(call);
  if (!call.recording()) return;
  if (info.kind == RequestInfo::Kind::kIsend) {
    Record r = p2p(RecordKind::kMpiIsend, call.stamp(), info.peer, info.comm, info.tag, info.bytes);
    r.request = info.id;
    call.emit(r);
  } else if (info.kind == RequestInfo::Kind::kIrecv) {
    call.emit(request_event(RecordKind::kMpiIrecvRequest, call.stamp(), info.id));
  } else {
    call.emit(request_event(RecordKind::kNbcRequest, call.stamp(), info.id));
  }
}

RequestInfo p2p_request(const Call& call, const MpiArgs& a, bool send, bool persistent) noexcept {
  RequestInfo info;
  const int peer = send ? a.dest : a.source;
  info.kind = peer == MPI_PROC_NULL ? RequestInfo::Kind::kIgnored
              : send                ? RequestInfo::Kind::kIsend
                                    : RequestInfo::Kind::kIrecv;
  info.persistent = persistent;
  info.active = false;
  info.comm = comm_of(call, a.comm);
  info.peer = peer;
  info.tag = a.tag;
  info.bytes = send ? bytes_of(a.scount, a.stype) : 0;
  return info;
}

void track(const Call& call, MPI_Request request, RequestInfo info) noexcept {
  const RequestsLock lock;
  if (request == MPI_REQUEST_NULL) return;
  try {
    info.poster = call.worker();
    RequestInfo& stored = requests_of(call).add(request, info, is_shared_request(request));
    if (!info.persistent) post(call, stored);
  } catch (...) {
    ++g_state.anomalies.unknown_requests;
  }
}

// The request `before` completed with `status`.
void complete(const Call& call, MPI_Request before, const MPI_Status* status) noexcept {
  const RequestsLock lock;
  if (before == MPI_REQUEST_NULL) return;
  RequestInfo* found = requests_of(call).find(before, call.worker());
  if (found == nullptr) return;  // file I/O, RMA or generalized requests: not tracked
  RequestInfo& info = *found;
  if (info.active && call.recording() && info.kind != RequestInfo::Kind::kIgnored) {
    int cancelled = 0;
    if (info.cancelled && status != nullptr) PMPI_Test_cancelled(status, &cancelled);
    if (cancelled != 0) {
      call.emit(request_event(RecordKind::kMpiRequestCancelled, call.stamp(), info.id));
    } else if (info.kind == RequestInfo::Kind::kIsend) {
      call.emit(request_event(RecordKind::kMpiIsendComplete, call.stamp(), info.id));
    } else if (info.kind == RequestInfo::Kind::kIrecv) {
      if (status != nullptr && status->MPI_SOURCE != MPI_PROC_NULL) {
        Record r = p2p(RecordKind::kMpiIrecv, call.stamp(), status->MPI_SOURCE, info.comm, status->MPI_TAG,
                       received_bytes(*status));
        r.request = info.id;
        call.emit(r);
      }
    } else {
      Record r;
      r.kind = RecordKind::kNbcComplete;
      r.time = call.stamp();
      r.op = info.op;
      r.comm = info.comm;
      r.root = info.root;
      r.bytes = info.bytes;
      r.bytes_received = info.bytes_received;
      r.request = info.id;
      call.emit(r);
    }
  }
  if (info.persistent) {
    info.active = false;
    info.cancelled = false;
  } else {
    requests_of(call).remove(before, found);
  }
}

// An unsuccessful test that is traced (ORRERY_TRACE_QUERIES=1).
void tested(const Call& call, const MPI_Request* requests, int count) noexcept {
  const RequestsLock lock;
  // A worker's tests are traced calls, but their events only as the MPI thread's are.
  if (!call.recording() || (call.worker() != nullptr && !g_state.settings.trace_queries)) return;
  for (int i = 0; i < count; ++i) {
    const RequestInfo* info = requests_of(call).find(requests[i]);
    if (info != nullptr && info->active && info->kind != RequestInfo::Kind::kIgnored) {
      call.emit(request_event(RecordKind::kMpiRequestTest, call.stamp(), info->id));
    }
  }
}

void start_collective(const Call& call, const MpiArgs& a) noexcept {
  RequestInfo info;
  info.kind = RequestInfo::Kind::kCollective;
  const CollectiveBytes c = collective_bytes(kFunctions[call.function()].op, a);
  info.op = c.op;
  info.root = c.root;
  info.bytes = c.sent;
  info.bytes_received = c.received;
  info.comm = comm_of(call, a.comm);
  track(call, *a.request, info);
}

void start_persistent(const Call& call, MPI_Request request) noexcept {
  const RequestsLock lock;
  RequestInfo* info = requests_of(call).find(request);
  if (info != nullptr && info->persistent) post(call, *info);
}

uint32_t message_comm(MPI_Message message) noexcept {
  const std::lock_guard<std::mutex> lock(g_messages_mutex);
  auto it = g_messages.find(message);
  if (it == g_messages.end()) return CommRegistry::kWorld;
  const uint32_t comm = it->second;
  g_messages.erase(it);
  return comm;
}

void complete_all(const Call& call, const MpiArgs& a) noexcept {
  for (int i = 0; i < a.nreq; ++i) complete(call, a.requests_before[i], &a.statuses[i]);
}

void complete_some(const Call& call, const MpiArgs& a) noexcept {
  for (int i = 0; i < *a.outcount; ++i) {
    const int index = a.indices[i];
    if (index >= 0 && index < a.nreq) complete(call, a.requests_before[index], &a.statuses[i]);
  }
}

void forget_request(const Call& call, MPI_Request request) noexcept {
  const RequestsLock lock;
  if (request != MPI_REQUEST_NULL) requests_of(call).remove(request);
}

void mark_cancelled(const Call& call, MPI_Request request) noexcept {
  const RequestsLock lock;
  if (RequestInfo* info = requests_of(call).find(request)) info->cancelled = true;
}

void remember_message(MPI_Message message, uint32_t comm) noexcept {
  try {
    const std::lock_guard<std::mutex> lock(g_messages_mutex);
    g_messages[message] = comm;
  } catch (...) {
  }
}

void share_requests(bool shared) noexcept { g_requests_shared = shared; }

void clear_requests() noexcept {
  {
    const RequestsLock lock;
    g_requests.clear();
  }
  g_requests_shared = false;
  const std::lock_guard<std::mutex> lock(g_messages_mutex);
  g_messages.clear();
}

}  // namespace orrery::measure

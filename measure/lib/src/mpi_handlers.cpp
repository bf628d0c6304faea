#include "mpi_handlers.h"

#include <otf2/OTF2_Events.h>
#include <otf2/OTF2_GeneralDefinitions.h>

#include <unordered_map>

#include "comm_registry.h"
#include "mpi_function_ids.h"
#include "request_table.h"

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

RequestTable g_requests;
std::unordered_map<MPI_Message, uint32_t> g_messages;  // matched message -> comm id
uint64_t g_next_request_id = 1;

uint64_t sum(const int* counts, int n) noexcept {
  uint64_t total = 0;
  for (int i = 0; counts != nullptr && i < n; ++i) total += counts[i] > 0 ? static_cast<uint64_t>(counts[i]) : 0;
  return total;
}

uint64_t typed_sum(const int* counts, const MPI_Datatype* types, int n) noexcept {
  uint64_t total = 0;
  for (int i = 0; counts != nullptr && types != nullptr && i < n; ++i) total += bytes_of(counts[i], types[i]);
  return total;
}

void neighbor_degrees(MPI_Comm comm, int& in, int& out) noexcept {
  in = out = 0;
  int topology = MPI_UNDEFINED;
  PMPI_Topo_test(comm, &topology);
  if (topology == MPI_CART) {
    int dims = 0;
    PMPI_Cartdim_get(comm, &dims);
    in = out = 2 * dims;
  } else if (topology == MPI_GRAPH) {
    int rank = 0;
    PMPI_Comm_rank(comm, &rank);
    PMPI_Graph_neighbors_count(comm, rank, &in);
    out = in;
  } else if (topology == MPI_DIST_GRAPH) {
    int weighted = 0;
    PMPI_Dist_graph_neighbors_count(comm, &in, &out, &weighted);
  }
}

struct CollectiveBytes {
  uint8_t op = OTF2_COLLECTIVE_OP_BARRIER;
  uint32_t root = OTF2_UNDEFINED_UINT32;
  uint64_t sent = 0;
  uint64_t received = 0;
};

// Bytes of the send buffers this process supplies and of the receive buffers it
// gets filled (its own block included), per the MPI standard's significance rules.
CollectiveBytes collective_bytes(CollOp op, const MpiArgs& a) noexcept {
  CollectiveBytes c;
  int n = 1;
  int me = 0;
  PMPI_Comm_size(a.comm, &n);
  PMPI_Comm_rank(a.comm, &me);
  const bool in_place = a.sbuf == MPI_IN_PLACE;
  const bool is_root = a.root == me;
  const uint64_t un = static_cast<uint64_t>(n);
  if (a.root >= 0) c.root = static_cast<uint32_t>(a.root);
  int in = 0;
  int out = 0;
  switch (op) {
    case CollOp::kNone:
    case CollOp::kBarrier: break;
    case CollOp::kBcast:
      c.op = OTF2_COLLECTIVE_OP_BCAST;
      (is_root ? c.sent : c.received) = bytes_of(a.scount, a.stype);
      break;
    case CollOp::kGather:
    case CollOp::kGatherv:
      c.op = op == CollOp::kGather ? OTF2_COLLECTIVE_OP_GATHER : OTF2_COLLECTIVE_OP_GATHERV;
      if (!in_place) c.sent = bytes_of(a.scount, a.stype);
      if (is_root) {
        c.received = op == CollOp::kGather ? un * bytes_of(a.rcount, a.rtype) : sum(a.rcounts, n) * type_size(a.rtype);
      }
      break;
    case CollOp::kScatter:
    case CollOp::kScatterv:
      c.op = op == CollOp::kScatter ? OTF2_COLLECTIVE_OP_SCATTER : OTF2_COLLECTIVE_OP_SCATTERV;
      if (is_root) {
        c.sent = op == CollOp::kScatter ? un * bytes_of(a.scount, a.stype) : sum(a.scounts, n) * type_size(a.stype);
      }
      if (!(is_root && a.rbuf == MPI_IN_PLACE)) c.received = bytes_of(a.rcount, a.rtype);
      break;
    case CollOp::kAllgather:
      c.op = OTF2_COLLECTIVE_OP_ALLGATHER;
      c.sent = in_place ? bytes_of(a.rcount, a.rtype) : bytes_of(a.scount, a.stype);
      c.received = un * bytes_of(a.rcount, a.rtype);
      break;
    case CollOp::kAllgatherv:
      c.op = OTF2_COLLECTIVE_OP_ALLGATHERV;
      c.sent = in_place ? (a.rcounts ? bytes_of(a.rcounts[me], a.rtype) : 0) : bytes_of(a.scount, a.stype);
      c.received = sum(a.rcounts, n) * type_size(a.rtype);
      break;
    case CollOp::kAlltoall:
      c.op = OTF2_COLLECTIVE_OP_ALLTOALL;
      c.received = un * bytes_of(a.rcount, a.rtype);
      c.sent = in_place ? c.received : un * bytes_of(a.scount, a.stype);
      break;
    case CollOp::kAlltoallv:
      c.op = OTF2_COLLECTIVE_OP_ALLTOALLV;
      c.received = sum(a.rcounts, n) * type_size(a.rtype);
      c.sent = in_place ? c.received : sum(a.scounts, n) * type_size(a.stype);
      break;
    case CollOp::kAlltoallw:
      c.op = OTF2_COLLECTIVE_OP_ALLTOALLW;
      c.received = typed_sum(a.rcounts, a.rtypes, n);
      c.sent = in_place ? c.received : typed_sum(a.scounts, a.stypes, n);
      break;
    case CollOp::kReduce:
      c.op = OTF2_COLLECTIVE_OP_REDUCE;
      c.sent = bytes_of(a.scount, a.stype);
      if (is_root) c.received = c.sent;
      break;
    case CollOp::kAllreduce:
    case CollOp::kScan:
    case CollOp::kExscan:
      c.op = op == CollOp::kAllreduce ? OTF2_COLLECTIVE_OP_ALLREDUCE
             : op == CollOp::kScan    ? OTF2_COLLECTIVE_OP_SCAN
                                      : OTF2_COLLECTIVE_OP_EXSCAN;
      c.sent = c.received = bytes_of(a.scount, a.stype);
      break;
    case CollOp::kReduceScatter:
      c.op = OTF2_COLLECTIVE_OP_REDUCE_SCATTER;
      c.sent = sum(a.rcounts, n) * type_size(a.stype);
      c.received = a.rcounts ? bytes_of(a.rcounts[me], a.stype) : 0;
      break;
    case CollOp::kReduceScatterBlock:
      c.op = OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK;
      c.received = bytes_of(a.rcount, a.stype);
      c.sent = un * c.received;
      break;
    case CollOp::kNeighborAllgather:
    case CollOp::kNeighborAlltoall:
      neighbor_degrees(a.comm, in, out);
      c.op = op == CollOp::kNeighborAllgather ? OTF2_COLLECTIVE_OP_ALLGATHER : OTF2_COLLECTIVE_OP_ALLTOALL;
      c.sent = static_cast<uint64_t>(op == CollOp::kNeighborAllgather ? 1 : out) * bytes_of(a.scount, a.stype);
      c.received = static_cast<uint64_t>(in) * bytes_of(a.rcount, a.rtype);
      break;
    case CollOp::kNeighborAllgatherv:
      neighbor_degrees(a.comm, in, out);
      c.op = OTF2_COLLECTIVE_OP_ALLGATHERV;
      c.sent = bytes_of(a.scount, a.stype);
      c.received = sum(a.rcounts, in) * type_size(a.rtype);
      break;
    case CollOp::kNeighborAlltoallv:
      neighbor_degrees(a.comm, in, out);
      c.op = OTF2_COLLECTIVE_OP_ALLTOALLV;
      c.sent = sum(a.scounts, out) * type_size(a.stype);
      c.received = sum(a.rcounts, in) * type_size(a.rtype);
      break;
    case CollOp::kNeighborAlltoallw:
      neighbor_degrees(a.comm, in, out);
      c.op = OTF2_COLLECTIVE_OP_ALLTOALLW;
      c.sent = typed_sum(a.scounts, a.stypes, out);
      c.received = typed_sum(a.rcounts, a.rtypes, in);
      break;
  }
  return c;
}

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

void record_recv(const Call& call, uint32_t comm, const MPI_Status* status) noexcept {
  if (!call.recording() || status == nullptr || status->MPI_SOURCE == MPI_PROC_NULL) return;
  record_message(RecordKind::kMpiRecv, call.stamp(),
                          static_cast<uint32_t>(status->MPI_SOURCE) + g_comms.peer_offset(comm), comm,
                          static_cast<uint32_t>(status->MPI_TAG), received_bytes(*status));
}

void record_send(const Call& call, int dest, MPI_Comm comm, int tag, int count, MPI_Datatype type) noexcept {
  if (!call.recording() || dest == MPI_PROC_NULL) return;
  const uint32_t id = g_comms.id(comm);
  record_message(RecordKind::kMpiSend, call.enter_time(), static_cast<uint32_t>(dest) + g_comms.peer_offset(id),
                          id, static_cast<uint32_t>(tag), bytes_of(count, type));
}

// Records the post of a (possibly persistent) point-to-point request.
void post(const Call& call, RequestInfo& info) noexcept {
  info.active = true;
  if (info.kind == RequestInfo::Kind::kIgnored) return;
  info.id = g_next_request_id++;
  if (!call.recording()) return;
  if (info.kind == RequestInfo::Kind::kIsend) {
    Record r = p2p(RecordKind::kMpiIsend, call.stamp(), info.peer, info.comm, info.tag, info.bytes);
    r.request = info.id;
    record(r);
  } else if (info.kind == RequestInfo::Kind::kIrecv) {
    record(request_event(RecordKind::kMpiIrecvRequest, call.stamp(), info.id));
  } else {
    record(request_event(RecordKind::kNbcRequest, call.stamp(), info.id));
  }
}

RequestInfo p2p_request(const MpiArgs& a, bool send, bool persistent) noexcept {
  RequestInfo info;
  const int peer = send ? a.dest : a.source;
  info.kind = peer == MPI_PROC_NULL ? RequestInfo::Kind::kIgnored
              : send                ? RequestInfo::Kind::kIsend
                                    : RequestInfo::Kind::kIrecv;
  info.persistent = persistent;
  info.active = false;
  info.comm = g_comms.id(a.comm);
  info.peer = peer;
  info.tag = a.tag;
  info.bytes = send ? bytes_of(a.scount, a.stype) : 0;
  return info;
}

void track(const Call& call, MPI_Request request, RequestInfo info) noexcept {
  if (request == MPI_REQUEST_NULL) return;
  try {
    RequestInfo& stored = g_requests.add(request, info, is_shared_request(request));
    if (!info.persistent) post(call, stored);
  } catch (...) {
    ++g_state.anomalies.unknown_requests;
  }
}

// The request `before` completed with `status`.
void complete(const Call& call, MPI_Request before, const MPI_Status* status) noexcept {
  if (before == MPI_REQUEST_NULL) return;
  RequestInfo* found = g_requests.find(before);
  if (found == nullptr) return;  // file I/O, RMA or generalized requests: not tracked
  RequestInfo& info = *found;
  if (info.active && call.recording() && info.kind != RequestInfo::Kind::kIgnored) {
    int cancelled = 0;
    if (info.cancelled && status != nullptr) PMPI_Test_cancelled(status, &cancelled);
    if (cancelled != 0) {
      record(request_event(RecordKind::kMpiRequestCancelled, call.stamp(), info.id));
    } else if (info.kind == RequestInfo::Kind::kIsend) {
      record(request_event(RecordKind::kMpiIsendComplete, call.stamp(), info.id));
    } else if (info.kind == RequestInfo::Kind::kIrecv) {
      if (status != nullptr && status->MPI_SOURCE != MPI_PROC_NULL) {
        Record r = p2p(RecordKind::kMpiIrecv, call.stamp(), status->MPI_SOURCE, info.comm, status->MPI_TAG,
                       received_bytes(*status));
        r.request = info.id;
        record(r);
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
      record(r);
    }
  }
  if (info.persistent) {
    info.active = false;
    info.cancelled = false;
  } else {
    g_requests.remove(before);
  }
}

// An unsuccessful test that is traced (ORRERY_TRACE_QUERIES=1).
void tested(const Call& call, const MPI_Request* requests, int count) noexcept {
  if (!call.recording()) return;
  for (int i = 0; i < count; ++i) {
    const RequestInfo* info = g_requests.find(requests[i]);
    if (info != nullptr && info->active && info->kind != RequestInfo::Kind::kIgnored) {
      record(request_event(RecordKind::kMpiRequestTest, call.stamp(), info->id));
    }
  }
}

void collective_end(const Call& call, const MpiArgs& a) noexcept {
  if (!call.recording()) return;
  const CollectiveBytes c = collective_bytes(kFunctions[call.function()].op, a);
  Record r;
  r.kind = RecordKind::kCollEnd;
  r.time = call.stamp();
  r.op = c.op;
  r.comm = g_comms.id(a.comm);
  r.root = c.root;
  r.bytes = c.sent;
  r.bytes_received = c.received;
  record(r);
}

void start_collective(const Call& call, const MpiArgs& a) noexcept {
  RequestInfo info;
  info.kind = RequestInfo::Kind::kCollective;
  const CollectiveBytes c = collective_bytes(kFunctions[call.function()].op, a);
  info.op = c.op;
  info.root = c.root;
  info.bytes = c.sent;
  info.bytes_received = c.received;
  info.comm = g_comms.id(a.comm);
  track(call, *a.request, info);
}

void start_persistent(const Call& call, MPI_Request request) noexcept {
  RequestInfo* info = g_requests.find(request);
  if (info != nullptr && info->persistent) post(call, *info);
}

uint32_t message_comm(MPI_Message message) noexcept {
  auto it = g_messages.find(message);
  if (it == g_messages.end()) return CommRegistry::kWorld;
  const uint32_t comm = it->second;
  g_messages.erase(it);
  return comm;
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

void complete_all(const Call& call, const MpiArgs& a) noexcept {
  for (int i = 0; i < a.nreq; ++i) complete(call, a.requests_before[i], &a.statuses[i]);
}

void complete_some(const Call& call, const MpiArgs& a) noexcept {
  for (int i = 0; i < *a.outcount; ++i) {
    const int index = a.indices[i];
    if (index >= 0 && index < a.nreq) complete(call, a.requests_before[index], &a.statuses[i]);
  }
}

}  // namespace

CommRegistry g_comms;
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

int peer_count(MPI_Comm comm, bool neighborhood) noexcept {
  int n = 0;
  if (neighborhood) {
    int in = 0;
    int out = 0;
    neighbor_degrees(comm, in, out);
    return in > out ? in : out;
  }
  PMPI_Comm_size(comm, &n);
  return n;
}

void init_handlers() noexcept {
  try {
    g_comms.init(g_state.definitions, g_state.world_rank, g_state.world_size);
  } catch (...) {
    ++g_state.anomalies.lazily_registered_comms;
  }
}

void finish_handlers() noexcept {
  g_comms.finish();
  g_requests.clear();
  g_messages.clear();
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
        record(begin);
      }
      break;
    case Category::kRequestFree:
      if (a.request_before != MPI_REQUEST_NULL) g_requests.remove(a.request_before);
      break;
    case Category::kCancel:
      if (RequestInfo* info = g_requests.find(a.request_before)) info->cancelled = true;
      break;
    case Category::kCommFree:
      g_comms.on_freed(a.comm);
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
      if (a.source != MPI_PROC_NULL) record_recv(call, g_comms.id(a.comm), a.status);
      break;
    case Category::kIsend: track(call, *a.request, p2p_request(a, true, false)); break;
    case Category::kIrecv: track(call, *a.request, p2p_request(a, false, false)); break;
    case Category::kSendInit: track(call, *a.request, p2p_request(a, true, true)); break;
    case Category::kRecvInit: track(call, *a.request, p2p_request(a, false, true)); break;
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
        try {
          g_messages[*a.message] = g_comms.id(a.comm);
        } catch (...) {
        }
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
        g_comms.on_idup(a.comm, *a.newcomm);
      } else {
        g_comms.on_created(a.comm, *a.newcomm, kFunctions[call.function()].name);
      }
      break;
    default: break;
  }
}

}  // namespace orrery::measure

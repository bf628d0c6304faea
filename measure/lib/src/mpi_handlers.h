#pragma once
// The ordinary C++ side of every generated MPI wrapper: the wrapper fills an
// MpiArgs with the arguments whose meaning the table names, then calls
// before_call() and after_call() around the PMPI call.

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "comm_registry.h"
#include "mpi_catalog.h"
#include "recorder.h"

namespace orrery::measure {

/// The arguments of one MPI call, by meaning (C handles, also for Fortran calls).
struct MpiArgs {
  const void* sbuf = nullptr;
  int scount = 0;
  MPI_Datatype stype = MPI_DATATYPE_NULL;
  const int* scounts = nullptr;
  const MPI_Datatype* stypes = nullptr;
  const void* rbuf = nullptr;
  int rcount = 0;
  MPI_Datatype rtype = MPI_DATATYPE_NULL;
  const int* rcounts = nullptr;
  const MPI_Datatype* rtypes = nullptr;
  int dest = MPI_PROC_NULL;
  int source = MPI_PROC_NULL;
  int tag = 0;
  int stag = -1;  ///< send tag of a sendrecv (-1: use tag)
  int rtag = -1;  ///< receive tag of a sendrecv (-1: use tag)
  int root = -1;
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm* newcomm = nullptr;
  MPI_Request* request = nullptr;
  MPI_Request* requests = nullptr;
  int nreq = 0;
  MPI_Status* status = nullptr;
  MPI_Status* statuses = nullptr;
  int* flag = nullptr;
  int* index = nullptr;
  int* outcount = nullptr;
  int* indices = nullptr;
  MPI_Message* message = nullptr;
  /// Copy of the request handles before the call (completion calls overwrite them).
  const MPI_Request* requests_before = nullptr;
  MPI_Request request_before = MPI_REQUEST_NULL;
  MPI_Message message_before = MPI_MESSAGE_NULL;
};

/// Sizes of predefined (named) datatypes, which are never freed, so a cached
/// size stays right; derived types are asked every time (a freed handle may
/// come back as another type). Direct-mapped by handle.
struct TypeSizeSlot {
  MPI_Datatype type = MPI_DATATYPE_NULL;
  uint64_t size = 0;
  bool named = false;
};
extern TypeSizeSlot g_type_sizes[64];
/// Size of `type` through PMPI (and fills its cache slot).
uint64_t type_size_slow(MPI_Datatype type) noexcept;

inline uint64_t type_size(MPI_Datatype type) noexcept {
  const TypeSizeSlot& slot = g_type_sizes[(reinterpret_cast<uintptr_t>(type) >> 4) & 63];
  if (slot.type == type && slot.named) [[likely]] return slot.size;
  return type_size_slow(type);
}

inline uint64_t bytes_of(int count, MPI_Datatype type) noexcept {
  return count > 0 ? static_cast<uint64_t>(count) * type_size(type) : 0;
}

/// Bytes received according to `status`.
inline uint64_t received_bytes(const MPI_Status& status) noexcept {
#if defined(OPEN_MPI) && OPEN_MPI
  return static_cast<uint64_t>(status._ucount);  // what MPI_Get_count(MPI_BYTE) divides, without the call
#else
  int count = 0;
  PMPI_Get_count(&status, MPI_BYTE, &count);
  return count > 0 ? static_cast<uint64_t>(count) : 0;
#endif
}

/// Fast path (see fast_path()) of the blocking sends: Enter and, unless the
/// peer is MPI_PROC_NULL, MpiSend at the same time. Returns the region.
__attribute__((always_inline)) inline uint32_t fast_send_enter(FunctionId fn, int dest, int tag, MPI_Comm comm,
                                                               int count, MPI_Datatype type) noexcept {
  const uint64_t time = now();
  t_depth = 1;
  const uint32_t region = mpi_region(fn);
  g_state.stack.push_back(region);
  if (dest == MPI_PROC_NULL) {
    g_state.buffer->enter(time, region);
  } else {
    const uint32_t id = g_comms.id(comm);
    g_state.buffer->enter_send(time, region, static_cast<uint32_t>(dest) + g_comms.peer_offset(id), id,
                               static_cast<uint32_t>(tag), bytes_of(count, type));
  }
  return region;
}

/// Fast path of the blocking receive after PMPI returned `rc`: MpiRecv
/// (unless nothing was received) and Leave at the same time.
__attribute__((always_inline)) inline void fast_recv_leave(uint32_t region, int rc, int source, MPI_Comm comm,
                                                           const MPI_Status* status) noexcept {
  t_depth = 0;
  const uint64_t time = now();
  if (!g_state.active) return;
  const bool message = rc == MPI_SUCCESS && source != MPI_PROC_NULL && status->MPI_SOURCE != MPI_PROC_NULL;
  if (!message) {
    record_leave(region, time);
    return;
  }
  const uint32_t id = g_comms.id(comm);
  const uint32_t peer = static_cast<uint32_t>(status->MPI_SOURCE) + g_comms.peer_offset(id);
  const auto tag = static_cast<uint32_t>(status->MPI_TAG);
  const uint64_t bytes = received_bytes(*status);
  if (!g_state.stack.empty() && g_state.stack.back() == region) [[likely]] {
    g_state.stack.pop_back();
    g_state.buffer->recv_leave(time, region, peer, id, tag, bytes);
  } else {
    g_state.buffer->message(RecordKind::kMpiRecv, time, peer, id, tag, bytes);
    ++g_state.anomalies.unmatched_leaves;
  }
}

/// Called after Enter, before the PMPI call.
void before_call(Call& call, MpiArgs& args) noexcept;
/// Called after the PMPI call returned `rc`, before Leave.
void after_call(Call& call, MpiArgs& args, int rc) noexcept;

/// Number of peers of `comm`: its size, or for a neighborhood collective the
/// larger of the topology's in- and out-degree.
int peer_count(MPI_Comm comm, bool neighborhood) noexcept;

/// Sets up communicator and request bookkeeping at MPI_Init.
void init_handlers() noexcept;
/// Id of `comm` for an event of `call` (a worker thread's: without the MPI
/// thread's cache, CommRegistry::shared_id).
uint32_t comm_of(const Call& call, MPI_Comm comm) noexcept;
/// Releases the bookkeeping at MPI_Finalize.
void finish_handlers() noexcept;

/// Copy of the request handles a completion call is about to overwrite.
class RequestSnapshot {
 public:
  RequestSnapshot(const MPI_Request* requests, int count) {
    const std::size_t n = count > 0 ? static_cast<std::size_t>(count) : 0;
    MPI_Request* out = small_;
    if (n > kSmall) {
      big_.resize(n);
      out = big_.data();
    }
    if (requests != nullptr) std::copy(requests, requests + n, out);
    data_ = out;
  }
  RequestSnapshot(const RequestSnapshot&) = delete;
  RequestSnapshot& operator=(const RequestSnapshot&) = delete;
  [[nodiscard]] const MPI_Request* data() const noexcept { return data_; }

 private:
  static constexpr std::size_t kSmall = 16;
  MPI_Request small_[kSmall];
  std::vector<MPI_Request> big_;
  const MPI_Request* data_;
};

/// Statuses to hand to PMPI: the caller's, or own storage for MPI_STATUSES_IGNORE
/// (the handlers need the actual source and tag).
class StatusSpace {
 public:
  StatusSpace(MPI_Status* user, int count) {
    if (user != MPI_STATUSES_IGNORE) {
      data_ = user;
      return;
    }
    const std::size_t n = count > 0 ? static_cast<std::size_t>(count) : 0;
    data_ = small_;
    if (n > kSmall) {
      big_.resize(n);
      data_ = big_.data();
    }
  }
  StatusSpace(const StatusSpace&) = delete;
  StatusSpace& operator=(const StatusSpace&) = delete;
  MPI_Status* data() noexcept { return data_; }

 private:
  static constexpr std::size_t kSmall = 16;
  MPI_Status small_[kSmall];
  std::vector<MPI_Status> big_;
  MPI_Status* data_;
};

}  // namespace orrery::measure

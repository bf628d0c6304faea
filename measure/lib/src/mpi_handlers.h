#pragma once
// The ordinary C++ side of every generated MPI wrapper: the wrapper fills an
// MpiArgs with the arguments whose meaning the table names, then calls
// before_call() and after_call() around the PMPI call.

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <vector>

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

/// Called after Enter, before the PMPI call.
void before_call(Call& call, MpiArgs& args) noexcept;
/// Called after the PMPI call returned `rc`, before Leave.
void after_call(Call& call, MpiArgs& args, int rc) noexcept;

/// Number of peers of `comm`: its size, or for a neighborhood collective the
/// larger of the topology's in- and out-degree.
int peer_count(MPI_Comm comm, bool neighborhood) noexcept;

/// Sets up communicator and request bookkeeping at MPI_Init.
void init_handlers() noexcept;
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

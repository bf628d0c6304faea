#pragma once
// The requests of non-blocking and persistent operations and matched probes
// (mpi_handlers.cpp dispatches to these): each tracked request gets an id,
// its post and completion become OTF2 request events. One table for the
// process: a request posted on one thread and completed on another has its
// completion recorded on the thread that completed it, with the post's id.

#include <mpi.h>

#include <cstdint>

#include "mpi_handlers.h"
#include "request_table.h"

namespace orrery::measure {

/// A point-to-point request's description from the posting call's arguments.
RequestInfo p2p_request(const Call& call, const MpiArgs& a, bool send, bool persistent) noexcept;
/// Tracks `request` and records its post (persistent ones: at each start).
void track(const Call& call, MPI_Request request, RequestInfo info) noexcept;
/// A non-blocking collective: tracked with its operation and bytes.
void start_collective(const Call& call, const MpiArgs& a) noexcept;
/// MPI_Start of a persistent request.
void start_persistent(const Call& call, MPI_Request request) noexcept;
/// The request `before` completed with `status`.
void complete(const Call& call, MPI_Request before, const MPI_Status* status) noexcept;
/// Every request of a Waitall/Testall completed.
void complete_all(const Call& call, const MpiArgs& a) noexcept;
/// The requests a Waitsome/Testsome reported completed.
void complete_some(const Call& call, const MpiArgs& a) noexcept;
/// An unsuccessful test that is traced (ORRERY_TRACE_QUERIES=1).
void tested(const Call& call, const MPI_Request* requests, int count) noexcept;
/// MPI_Request_free.
void forget_request(const Call& call, MPI_Request request) noexcept;
/// MPI_Cancel: the completion may be a cancellation.
void mark_cancelled(const Call& call, MPI_Request request) noexcept;
/// A matched probe's message belongs to `comm` (until received).
void remember_message(MPI_Message message, uint32_t comm) noexcept;
/// The communicator of a matched message, forgotten as it is received.
uint32_t message_comm(MPI_Message message) noexcept;
/// At MPI_Init: whether threads may call MPI at the same time
/// (MPI_THREAD_MULTIPLE), so that the request table takes a mutex.
void share_requests(bool shared) noexcept;
/// At MPI_Finalize.
void clear_requests() noexcept;

}  // namespace orrery::measure

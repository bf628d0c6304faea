// The block layer's point-to-point operations and requests (vmpi_block.h).

#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>

#include "vmpi_block.h"

namespace orrery::vmpi::block {

bool active = false;
thread_local Rank* current = nullptr;

void Mailbox::deliver(Message message) {
  {
    std::lock_guard lock(mutex);
    queue.push_back(std::move(message));
    ++version;
  }
  changed.notify_all();
}

void Mailbox::touch() {
  {
    std::lock_guard lock(mutex);
    ++version;
  }
  changed.notify_all();
}

std::optional<Message> Mailbox::take(const std::function<bool(const Message&)>& match) {
  std::lock_guard lock(mutex);
  auto it = std::find_if(queue.begin(), queue.end(), match);
  if (it == queue.end()) return std::nullopt;
  Message message = std::move(*it);
  queue.erase(it);
  return message;
}

Comm* comm_of(MPI_Comm handle) {
  if (handle == MPI_COMM_WORLD) return current->world;
  if (handle == MPI_COMM_SELF) return current->self;
  if (handle == MPI_COMM_NULL) throw std::logic_error("vmpi: operation on MPI_COMM_NULL");
  return reinterpret_cast<Comm*>(handle);
}

std::size_t bytes_of(int count, MPI_Datatype type) {
  int size = 0;
  MPI_Type_size(type, &size);
  return static_cast<std::size_t>(count) * static_cast<std::size_t>(size);
}

uint64_t derive_context(uint64_t parent, uint64_t salt) {
  // splitmix64 of the pair; contexts are even (odd = the collective context).
  uint64_t x = parent * 0x9E3779B97F4A7C15ULL + salt + 0x632BE59BD9B4E019ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return (x ^ (x >> 31)) & ~uint64_t{1};
}

void fill_status(MPI_Status* status, int source, int tag, std::size_t bytes) {
  if (status == MPI_STATUS_IGNORE) return;
  status->MPI_SOURCE = source;
  status->MPI_TAG = tag;
  status->MPI_ERROR = MPI_SUCCESS;
  MPI_Status_set_elements(status, MPI_BYTE, static_cast<int>(bytes));
}

namespace {

bool matches(const Message& message, uint64_t context, int source, int tag) {
  return message.context == context && (source == MPI_ANY_SOURCE || message.source == source) &&
         (tag == MPI_ANY_TAG || message.tag == tag);
}

Request* request_of(MPI_Request handle) { return reinterpret_cast<Request*>(handle); }

void complete_receive(Request& request, Message& message) {
  if (message.data.size() > request.capacity) {
    throw std::runtime_error("vmpi: message of " + std::to_string(message.data.size()) +
                             " bytes truncated to " + std::to_string(request.capacity));
  }
  if (!message.data.empty()) std::memcpy(request.buffer, message.data.data(), message.data.size());
  request.status_source = message.source;
  request.status_tag = static_cast<int>(message.tag);
  request.bytes = message.data.size();
  request.done = true;
  if (message.sync != 0) acknowledge(message);
}

/// Completes `request` if done: fills `status`, frees it; true if it was.
bool finish(MPI_Request* handle, MPI_Status* status) {
  if (*handle == MPI_REQUEST_NULL) {
    fill_status(status, MPI_ANY_SOURCE, MPI_ANY_TAG, 0);
    return true;
  }
  Request* request = request_of(*handle);
  if (!request->done || !request->acknowledged.load()) return false;
  fill_status(status, request->status_source, request->status_tag, request->bytes);
  delete request;
  *handle = MPI_REQUEST_NULL;
  return true;
}

bool ready(MPI_Request handle) {
  if (handle == MPI_REQUEST_NULL) return true;
  const Request* request = request_of(handle);
  return request->done && request->acknowledged.load();
}

MPI_Status* status_at(MPI_Status* statuses, int k) {
  return statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : statuses + k;
}

}  // namespace

void progress() {
  Rank& rank = *current;
  // Posted receives first, in posting order (MPI's matching order).
  for (auto it = rank.receives.begin(); it != rank.receives.end();) {
    Request& request = **it;
    auto message = rank.mailbox->take([&](const Message& m) {
      return matches(m, request.context, request.source, request.tag);
    });
    if (!message) {
      ++it;
      continue;
    }
    complete_receive(request, *message);
    it = rank.receives.erase(it);
  }
  for (auto it = rank.collectives.begin(); it != rank.collectives.end();) {
    Request& request = **it;
    if (advance(*request.collective)) {
      request.done = true;
      it = rank.collectives.erase(it);
    } else {
      ++it;
    }
  }
}

void wait_until(const std::function<bool()>& done) {
  Mailbox& mailbox = *current->mailbox;
  for (;;) {
    uint64_t seen = 0;
    {
      std::lock_guard lock(mailbox.mutex);
      seen = mailbox.version;
    }
    progress();
    if (done()) return;
    std::unique_lock lock(mailbox.mutex);
    mailbox.changed.wait_for(lock, std::chrono::milliseconds(50),
                             [&] { return mailbox.version != seen; });
  }
}

int send(const void* data, int count, MPI_Datatype type, int dest, int tag, MPI_Comm handle) {
  MPI_Request request = MPI_REQUEST_NULL;
  isend(data, count, type, dest, tag, handle, &request, false);
  return waitall(1, &request, MPI_STATUSES_IGNORE);
}

int isend(const void* data, int count, MPI_Datatype type, int dest, int tag, MPI_Comm handle,
          MPI_Request* out, bool synchronous) {
  Comm* comm = comm_of(handle);
  auto* request = new Request;
  request->done = true;  // buffered: the data is copied into the message
  Message message;
  message.context = comm->context;
  message.source = comm->rank;
  message.tag = tag;
  message.sender = current->traced;
  const std::size_t bytes = bytes_of(count, type);
  message.data.assign(static_cast<const char*>(data), static_cast<const char*>(data) + bytes);
  if (synchronous) {
    request->acknowledged = false;
    message.sync = reinterpret_cast<uint64_t>(request);
  }
  post(comm->members.at(static_cast<std::size_t>(dest)), std::move(message));
  *out = reinterpret_cast<MPI_Request>(request);
  return MPI_SUCCESS;
}

int irecv(void* data, int count, MPI_Datatype type, int source, int tag, MPI_Comm handle,
          MPI_Request* out) {
  Comm* comm = comm_of(handle);
  auto* request = new Request;
  request->kind = Request::Kind::kReceive;
  request->buffer = data;
  request->capacity = bytes_of(count, type);
  request->source = source;
  request->tag = tag;
  request->context = comm->context;
  current->receives.push_back(request);
  *out = reinterpret_cast<MPI_Request>(request);
  return MPI_SUCCESS;
}

int recv(void* data, int count, MPI_Datatype type, int source, int tag, MPI_Comm handle,
         MPI_Status* status) {
  MPI_Request request = MPI_REQUEST_NULL;
  irecv(data, count, type, source, tag, handle, &request);
  return waitall(1, &request, status == MPI_STATUS_IGNORE ? MPI_STATUSES_IGNORE : status);
}

int iprobe(int source, int tag, MPI_Comm handle, int* flag, MPI_Status* status) {
  progress();
  Comm* comm = comm_of(handle);
  Mailbox& mailbox = *current->mailbox;
  std::lock_guard lock(mailbox.mutex);
  for (const Message& message : mailbox.queue) {
    if (!matches(message, comm->context, source, tag)) continue;
    fill_status(status, message.source, static_cast<int>(message.tag), message.data.size());
    *flag = 1;
    return MPI_SUCCESS;
  }
  *flag = 0;
  return MPI_SUCCESS;
}

int probe(int source, int tag, MPI_Comm handle, MPI_Status* status) {
  int flag = 0;
  wait_until([&] {
    iprobe(source, tag, handle, &flag, status);
    return flag != 0;
  });
  return MPI_SUCCESS;
}

int test(MPI_Request* request, int* flag, MPI_Status* status) {
  progress();
  *flag = finish(request, status) ? 1 : 0;
  return MPI_SUCCESS;
}

int testall(int n, MPI_Request* requests, int* flag, MPI_Status* statuses) {
  progress();
  *flag = std::all_of(requests, requests + n, ready) ? 1 : 0;
  if (*flag != 0) {
    for (int k = 0; k < n; ++k) finish(&requests[k], status_at(statuses, k));
  }
  return MPI_SUCCESS;
}

int testsome(int n, MPI_Request* requests, int* outcount, int* indices, MPI_Status* statuses) {
  progress();
  if (std::all_of(requests, requests + n, [](MPI_Request r) { return r == MPI_REQUEST_NULL; })) {
    *outcount = MPI_UNDEFINED;
    return MPI_SUCCESS;
  }
  int completed = 0;
  for (int k = 0; k < n; ++k) {
    if (requests[k] == MPI_REQUEST_NULL || !ready(requests[k])) continue;
    finish(&requests[k], status_at(statuses, completed));
    indices[completed++] = k;
  }
  *outcount = completed;
  return MPI_SUCCESS;
}

int waitall(int n, MPI_Request* requests, MPI_Status* statuses) {
  wait_until([&] { return std::all_of(requests, requests + n, ready); });
  for (int k = 0; k < n; ++k) finish(&requests[k], status_at(statuses, k));
  return MPI_SUCCESS;
}

}  // namespace orrery::vmpi::block

// The analyzer's first message matching, kept as the reference the
// precomputed MessageMatching is tested against: a validation pass
// (check_messages) and an exchange that matches every value again through
// hash-map queues per source and channel (exchange_along_messages). Simple
// and obviously right, and slow: it redoes the matching on every call.

#include "reference_matching.h"

#include <string>
#include <unordered_map>

namespace orrery::analyzer::reference {
namespace {

/// One value on its way: the channel it belongs to and the value.
struct Entry {
  uint32_t comm;
  uint32_t tag;
  int64_t value;
};

bool usable(const MessageOp& op) { return !op.cancelled && op.peer != kNone; }

uint64_t channel(uint32_t comm, uint32_t tag) { return (static_cast<uint64_t>(comm) << 32) | tag; }

}  // namespace

std::string check_messages(const LocalTrace& trace, const Definitions& definitions,
                           const Communicators& comms, MPI_Comm world) {
  int world_size = 0;
  MPI_Comm_size(world, &world_size);
  std::vector<int> sent_to(static_cast<std::size_t>(world_size), 0);
  std::vector<int> received_from(static_cast<std::size_t>(world_size), 0);
  std::string error;
  auto count = [&](const MessageOp& op, std::vector<int>& counts, const char* what) {
    const uint32_t peer = definitions.world_rank(op.comm, op.peer, trace.rank);
    if (peer == kNone || peer >= counts.size() || comms.get(op.comm) == MPI_COMM_NULL) {
      if (error.empty()) {
        error = "rank " + std::to_string(trace.rank) + " has a " + what +
                " on communicator " + std::to_string(op.comm) + " with peer " +
                std::to_string(op.peer) + " that the definitions do not know";
      }
      return;
    }
    ++counts[peer];
  };
  for (const MessageOp& op : trace.sends) {
    if (!op.cancelled) count(op, sent_to, "send");
  }
  for (const MessageOp& op : trace.recvs) {
    if (!op.cancelled && op.peer != kNone) count(op, received_from, "receive");
  }
  std::vector<int> they_sent(static_cast<std::size_t>(world_size), 0);
  MPI_Alltoall(sent_to.data(), 1, MPI_INT, they_sent.data(), 1, MPI_INT, world);
  for (int peer = 0; peer < world_size && error.empty(); ++peer) {
    const auto p = static_cast<std::size_t>(peer);
    if (they_sent[p] != received_from[p]) {
      error = "the traces disagree: rank " + std::to_string(peer) + " sent " +
              std::to_string(they_sent[p]) + " messages to rank " + std::to_string(trace.rank) +
              ", which received " + std::to_string(received_from[p]) +
              " (a truncated or inconsistent trace)";
    }
  }
  return error;
}

std::vector<int64_t> exchange_along_messages(const MessageTable& outgoing,
                                             const std::vector<int64_t>& values,
                                             const MessageTable& incoming,
                                             const Definitions& definitions, uint32_t self,
                                             MPI_Comm world) {
  int size = 0;
  MPI_Comm_size(world, &size);
  const auto n = static_cast<std::size_t>(size);

  // Outgoing entries grouped by destination, each group in posting order.
  std::vector<int> send_counts(n, 0);
  std::vector<uint32_t> destination(outgoing.size(), kNone);
  for (std::size_t i = 0; i < outgoing.size(); ++i) {
    if (!usable(outgoing[i])) continue;
    const uint32_t peer = definitions.world_rank(outgoing[i].comm, outgoing[i].peer, self);
    if (peer >= n) continue;
    destination[i] = peer;
    ++send_counts[peer];
  }
  std::vector<int> send_displs(n, 0), recv_counts(n, 0), recv_displs(n, 0);
  for (std::size_t p = 1; p < n; ++p) send_displs[p] = send_displs[p - 1] + send_counts[p - 1];
  std::vector<Entry> send_buffer(outgoing.empty() ? 0 : static_cast<std::size_t>(send_displs[n - 1] + send_counts[n - 1]));
  {
    std::vector<int> fill = send_displs;
    for (std::size_t i = 0; i < outgoing.size(); ++i) {
      if (destination[i] == kNone) continue;
      send_buffer[static_cast<std::size_t>(fill[destination[i]]++)] =
          Entry{outgoing[i].comm, outgoing[i].tag, values[i]};
    }
  }
  MPI_Alltoall(send_counts.data(), 1, MPI_INT, recv_counts.data(), 1, MPI_INT, world);
  for (std::size_t p = 1; p < n; ++p) recv_displs[p] = recv_displs[p - 1] + recv_counts[p - 1];
  const auto received = static_cast<std::size_t>(recv_displs[n - 1] + recv_counts[n - 1]);
  std::vector<Entry> recv_buffer(received);

  MPI_Datatype entry_type;
  MPI_Type_contiguous(static_cast<int>(sizeof(Entry)), MPI_BYTE, &entry_type);
  MPI_Type_commit(&entry_type);
  MPI_Alltoallv(send_buffer.data(), send_counts.data(), send_displs.data(), entry_type,
                recv_buffer.data(), recv_counts.data(), recv_displs.data(), entry_type, world);
  MPI_Type_free(&entry_type);

  // Per source and channel, the values in the order the source posted them.
  // Most traffic uses few channels: remember the last one looked up.
  struct Queue {
    std::vector<int64_t> values;
    std::size_t next = 0;
  };
  std::vector<std::unordered_map<uint64_t, Queue>> queues(n);
  for (std::size_t p = 0; p < n; ++p) {
    uint64_t last_key = ~uint64_t{0};
    Queue* last = nullptr;
    for (int k = 0; k < recv_counts[p]; ++k) {
      const Entry& e = recv_buffer[static_cast<std::size_t>(recv_displs[p] + k)];
      const uint64_t key = channel(e.comm, e.tag);
      if (key != last_key) {
        last = &queues[p][key];
        last_key = key;
      }
      last->values.push_back(e.value);
    }
  }
  std::vector<int64_t> result(incoming.size(), kNoValue);
  uint64_t last_key = ~uint64_t{0};
  uint32_t last_peer = kNone;
  Queue* last = nullptr;
  for (std::size_t j = 0; j < incoming.size(); ++j) {
    if (!usable(incoming[j])) continue;
    const uint32_t peer = definitions.world_rank(incoming[j].comm, incoming[j].peer, self);
    if (peer >= n) continue;
    const uint64_t key = channel(incoming[j].comm, incoming[j].tag);
    if (key != last_key || peer != last_peer) {
      auto it = queues[peer].find(key);
      last = it == queues[peer].end() ? nullptr : &it->second;
      last_key = key;
      last_peer = peer;
    }
    if (last != nullptr && last->next < last->values.size()) {
      result[j] = last->values[last->next++];
    }
  }
  return result;
}

}  // namespace orrery::analyzer::reference

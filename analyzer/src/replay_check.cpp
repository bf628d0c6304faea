// Validation before the replay: a trace that would make the replay wait for
// a message nobody sends is rejected on all ranks instead of hanging.

#include <vector>

#include "orrery/analyzer/replay.h"

namespace orrery::analyzer {

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

}  // namespace orrery::analyzer

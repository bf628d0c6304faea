// The block layer's collectives (vmpi_block.h): every member sends its
// contribution to the communicator's first member, which combines them in
// rank order and sends each member its part. Reductions fold in rank order
// with MPI_Reduce_local, so any MPI_Op (also user-defined) works.

#include <cstring>
#include <stdexcept>

#include "vmpi_block.h"

namespace orrery::vmpi::block {

struct Collective {
  CollectiveArgs args;
  Comm* comm = nullptr;
  int64_t sequence = 0;
  std::vector<std::vector<char>> contributions;  ///< on the first member
  int received = 0;
};

Request::Request() = default;
Request::~Request() = default;

namespace {

constexpr int kCoordinator = 0;

std::vector<char> contribution(const CollectiveArgs& args, int rank) {
  const void* from = args.send == MPI_IN_PLACE ? args.recv : args.send;
  switch (args.op) {
    case Op::kBarrier: return {};
    case Op::kBcast:
      if (rank != args.root) return {};
      break;
    case Op::kGather:
    case Op::kAllgather:
      if (args.send == MPI_IN_PLACE) throw std::logic_error("vmpi: in-place gather");
      break;
    default: break;
  }
  const auto* bytes = static_cast<const char*>(from);
  return {bytes, bytes + bytes_of(args.count, args.type)};
}

/// contributions[0] op ... op contributions[k] for each k.
std::vector<std::vector<char>> prefixes(const CollectiveArgs& args,
                                        const std::vector<std::vector<char>>& contributions) {
  std::vector<std::vector<char>> out(contributions.size());
  out[0] = contributions[0];
  for (std::size_t k = 1; k < contributions.size(); ++k) {
    out[k] = contributions[k];
    MPI_Reduce_local(out[k - 1].data(), out[k].data(), args.count, args.type, args.reduction);
  }
  return out;
}

std::vector<std::vector<char>> combine(const CollectiveArgs& args,
                                       std::vector<std::vector<char>>& contributions) {
  const std::size_t n = contributions.size();
  std::vector<std::vector<char>> results(n);
  switch (args.op) {
    case Op::kBarrier: break;
    case Op::kBcast:
      for (auto& result : results) result = contributions[static_cast<std::size_t>(args.root)];
      break;
    case Op::kReduce:
    case Op::kAllreduce:
    case Op::kScan:
    case Op::kExscan: {
      auto folded = prefixes(args, contributions);
      for (std::size_t k = 0; k < n; ++k) {
        if (args.op == Op::kScan) results[k] = folded[k];
        if (args.op == Op::kExscan && k > 0) results[k] = folded[k - 1];
        if (args.op == Op::kAllreduce) results[k] = folded[n - 1];
      }
      if (args.op == Op::kReduce) results[static_cast<std::size_t>(args.root)] = folded[n - 1];
      break;
    }
    case Op::kGather:
    case Op::kAllgather: {
      std::vector<char> all;
      for (const auto& part : contributions) all.insert(all.end(), part.begin(), part.end());
      if (args.op == Op::kGather) {
        results[static_cast<std::size_t>(args.root)] = std::move(all);
      } else {
        for (auto& result : results) result = all;
      }
      break;
    }
  }
  return results;
}

/// Writes a member's result into its receive buffer.
void deliver_result(const Collective& collective, const std::vector<char>& data) {
  const CollectiveArgs& args = collective.args;
  const int rank = collective.comm->rank;
  const bool gathers = args.op == Op::kGather || args.op == Op::kAllgather;
  if (!gathers) {
    if (args.op == Op::kBcast && rank == args.root) return;
    if (!data.empty()) std::memcpy(args.recv, data.data(), data.size());
    return;
  }
  if (data.empty()) return;  // a Gather's non-root
  const std::size_t members = collective.comm->members.size();
  const std::size_t element = bytes_of(1, args.type);
  std::size_t offset = 0;
  for (std::size_t r = 0; r < members; ++r) {
    const std::size_t bytes =
        args.recv_counts != nullptr ? element * static_cast<std::size_t>(args.recv_counts[r])
                                    : bytes_of(args.count, args.type);
    const std::size_t at = args.displacements != nullptr
                               ? element * static_cast<std::size_t>(args.displacements[r])
                               : r * bytes;
    if (offset + bytes > data.size()) throw std::runtime_error("vmpi: gather counts disagree");
    std::memcpy(static_cast<char*>(args.recv) + at, data.data() + offset, bytes);
    offset += bytes;
  }
}

}  // namespace

Message take_collective(const Comm& comm, int source, int64_t tag) {
  std::optional<Message> message;
  wait_until([&] {
    message = current->mailbox->take([&](const Message& m) {
      return m.context == (comm.context | 1U) && m.tag == tag &&
             (source == MPI_ANY_SOURCE || m.source == source);
    });
    return message.has_value();
  });
  return std::move(*message);
}

bool advance(Collective& collective) {
  Comm& comm = *collective.comm;
  auto take = [&](int source) {
    return current->mailbox->take([&](const Message& m) {
      return m.context == (comm.context | 1U) && m.tag == collective.sequence &&
             (source == MPI_ANY_SOURCE || m.source == source);
    });
  };
  if (comm.rank != kCoordinator) {
    auto result = take(kCoordinator);
    if (!result) return false;
    deliver_result(collective, result->data);
    return true;
  }
  const int members = static_cast<int>(comm.members.size());
  while (collective.received < members) {
    auto part = take(MPI_ANY_SOURCE);
    if (!part) return false;
    collective.contributions[static_cast<std::size_t>(part->source)] = std::move(part->data);
    ++collective.received;
  }
  auto results = combine(collective.args, collective.contributions);
  for (int r = 0; r < members; ++r) {
    if (r == kCoordinator) continue;
    Message message;
    message.context = comm.context | 1U;
    message.source = kCoordinator;
    message.tag = collective.sequence;
    message.sender = current->traced;
    message.data = std::move(results[static_cast<std::size_t>(r)]);
    post(comm.members[static_cast<std::size_t>(r)], std::move(message));
  }
  deliver_result(collective, results[kCoordinator]);
  return true;
}

int collective(const CollectiveArgs& args, MPI_Comm handle, MPI_Request* out) {
  Comm* comm = comm_of(handle);
  auto* request = new Request;
  request->kind = Request::Kind::kCollective;
  request->collective = std::make_unique<Collective>();
  Collective& op = *request->collective;
  op.args = args;
  op.comm = comm;
  op.sequence = static_cast<int64_t>(comm->collectives++);
  std::vector<char> mine = contribution(args, comm->rank);
  if (comm->rank == kCoordinator) {
    op.contributions.resize(comm->members.size());
    op.contributions[kCoordinator] = std::move(mine);
    op.received = 1;
  } else {
    Message message;
    message.context = comm->context | 1U;
    message.source = comm->rank;
    message.tag = op.sequence;
    message.sender = current->traced;
    message.data = std::move(mine);
    post(comm->members[kCoordinator], std::move(message));
  }
  current->collectives.push_back(request);
  MPI_Request handle_out = reinterpret_cast<MPI_Request>(request);
  if (out != nullptr) {
    *out = handle_out;
    progress();
    return MPI_SUCCESS;
  }
  return waitall(1, &handle_out, MPI_STATUSES_IGNORE);
}

}  // namespace orrery::vmpi::block

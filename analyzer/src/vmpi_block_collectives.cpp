// The block layer's collectives (vmpi_block.h), as schedules of sends and
// receives that advance whenever their rank calls into the layer (so the
// non-blocking forms need nothing else). Reductions, barriers and broadcasts
// go along binomial trees (each member receives O(log P) messages per
// instance), scans along the chain of ranks (one message per member), gathers
// to their root. Reductions combine with MPI_Reduce_local, so built-in and
// user-defined operations both work; the replays' operations are exact in
// any order (integers, max, min; reproducible_sum.h for doubles).

#include <cstring>
#include <stdexcept>

#include "vmpi_block.h"

namespace orrery::vmpi::block {

struct Step {
  enum class Kind {
    kSend,            ///< sends `value` to `peer`
    kCombineHigher,   ///< value = value op (what `peer`, holding higher ranks, sent)
    kCombineLower,    ///< value = (what `peer`, holding lower ranks, sent) op value
    kKeepPrefix,      ///< as kCombineLower, and the received prefix is the result
    kReplace,         ///< value = what `peer` sent
    kStorePiece,      ///< pieces[peer] = what `peer` sent
    kAssemble,        ///< value = the pieces in rank order
  } kind;
  int peer = 0;
  int phase = 0;
};

struct Collective {
  CollectiveArgs args;
  Comm* comm = nullptr;
  int64_t sequence = 0;
  std::vector<Step> steps;
  std::size_t next = 0;
  std::vector<char> value;
  std::optional<std::vector<char>> result;  ///< set by kKeepPrefix (Exscan)
  std::vector<std::vector<char>> pieces;
};

Request::Request() = default;
Request::~Request() = default;

namespace {

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

/// Binomial tree over ranks relative to `root`: receive from the children
/// (combining), then send to the parent.
void reduce_tree(std::vector<Step>& steps, int rank, int n, int root, int phase) {
  const int v = (rank - root + n) % n;
  for (int mask = 1; mask < n; mask <<= 1) {
    if ((v & mask) != 0) {
      steps.push_back({Step::Kind::kSend, (v - mask + root) % n, phase});
      return;
    }
    if (v + mask < n) steps.push_back({Step::Kind::kCombineHigher, (v + mask + root) % n, phase});
  }
}

/// Binomial tree from `root`: receive from the parent, send to the children.
void broadcast_tree(std::vector<Step>& steps, int rank, int n, int root, int phase) {
  const int v = (rank - root + n) % n;
  int mask = 1;
  for (; mask < n; mask <<= 1) {
    if ((v & mask) != 0) {
      steps.push_back({Step::Kind::kReplace, (v - mask + root) % n, phase});
      break;
    }
  }
  for (mask >>= 1; mask > 0; mask >>= 1) {
    if (v + mask < n) steps.push_back({Step::Kind::kSend, (v + mask + root) % n, phase});
  }
}

void gather_linear(std::vector<Step>& steps, int rank, int n, int root) {
  if (rank != root) {
    steps.push_back({Step::Kind::kSend, root, 0});
    return;
  }
  for (int r = 0; r < n; ++r) {
    if (r != root) steps.push_back({Step::Kind::kStorePiece, r, 0});
  }
  steps.push_back({Step::Kind::kAssemble, root, 0});
}

std::vector<Step> schedule(const CollectiveArgs& args, int rank, int n) {
  std::vector<Step> steps;
  switch (args.op) {
    case Op::kReduce: reduce_tree(steps, rank, n, args.root, 0); break;
    case Op::kBarrier:
    case Op::kAllreduce:
      reduce_tree(steps, rank, n, 0, 0);
      broadcast_tree(steps, rank, n, 0, 1);
      break;
    case Op::kBcast: broadcast_tree(steps, rank, n, args.root, 1); break;
    case Op::kScan:
    case Op::kExscan:
      if (rank > 0) {
        steps.push_back({args.op == Op::kScan ? Step::Kind::kCombineLower : Step::Kind::kKeepPrefix,
                         rank - 1, 0});
      }
      if (rank + 1 < n) steps.push_back({Step::Kind::kSend, rank + 1, 0});
      break;
    case Op::kGather: gather_linear(steps, rank, n, args.root); break;
    case Op::kAllgather:
      gather_linear(steps, rank, n, 0);
      broadcast_tree(steps, rank, n, 0, 1);
      break;
  }
  return steps;
}

/// Writes a member's result into its receive buffer.
void deliver_result(const Collective& collective) {
  const CollectiveArgs& args = collective.args;
  const int rank = collective.comm->rank;
  const std::vector<char>& data = collective.result ? *collective.result : collective.value;
  switch (args.op) {
    case Op::kBarrier: return;
    case Op::kBcast:
      if (rank == args.root) return;
      break;
    case Op::kReduce:
    case Op::kGather:
      if (rank != args.root) return;
      break;
    case Op::kExscan:
      if (!collective.result) return;  // rank 0: undefined, left alone
      break;
    default: break;
  }
  if (args.op != Op::kGather && args.op != Op::kAllgather) {
    if (!data.empty()) std::memcpy(args.recv, data.data(), data.size());
    return;
  }
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

/// value = left op right, in MPI's order (left holds the lower ranks).
std::vector<char> combine(const CollectiveArgs& args, const std::vector<char>& left,
                          std::vector<char> right) {
  if (args.op == Op::kBarrier) return right;
  MPI_Reduce_local(left.data(), right.data(), args.count, args.type, args.reduction);
  return right;
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

bool advance(Collective& op) {
  const Comm& comm = *op.comm;
  while (op.next < op.steps.size()) {
    const Step& step = op.steps[op.next];
    const int64_t tag = collective_tag(op.sequence, step.phase);
    if (step.kind == Step::Kind::kSend) {
      Message message;
      message.context = comm.context | 1U;
      message.source = comm.rank;
      message.tag = tag;
      message.sender = current->traced;
      message.data = op.value;
      post(comm.members[static_cast<std::size_t>(step.peer)], std::move(message));
    } else if (step.kind == Step::Kind::kAssemble) {
      op.pieces[static_cast<std::size_t>(comm.rank)] = std::move(op.value);
      op.value.clear();
      for (const auto& piece : op.pieces) op.value.insert(op.value.end(), piece.begin(), piece.end());
    } else {
      auto message = current->mailbox->take([&](const Message& m) {
        return m.context == (comm.context | 1U) && m.tag == tag && m.source == step.peer;
      });
      if (!message) return false;
      switch (step.kind) {
        case Step::Kind::kCombineHigher:
          op.value = combine(op.args, op.value, std::move(message->data));
          break;
        case Step::Kind::kKeepPrefix:
          op.result = message->data;
          [[fallthrough]];
        case Step::Kind::kCombineLower:
          op.value = combine(op.args, message->data, std::move(op.value));
          break;
        case Step::Kind::kReplace: op.value = std::move(message->data); break;
        case Step::Kind::kStorePiece:
          op.pieces[static_cast<std::size_t>(step.peer)] = std::move(message->data);
          break;
        default: break;
      }
    }
    ++op.next;
  }
  deliver_result(op);
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
  const int n = static_cast<int>(comm->members.size());
  op.value = contribution(args, comm->rank);
  op.steps = schedule(args, comm->rank, n);
  if (args.op == Op::kGather || args.op == Op::kAllgather) op.pieces.resize(comm->members.size());
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

#include "unify.h"

#include <time.h>

#include <algorithm>
#include <string>
#include <vector>

#include "unify_set.h"

namespace orrery::measure {
namespace {

constexpr int kUpTag = 0x0defu;    // a block's definitions, child -> parent
constexpr int kDownTag = 0x0deeu;  // a block's ids -> global ids, parent -> child

double thread_cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

/// This rank's place in the binomial tree rooted at rank 0: the children
/// rank + 1, rank + 2, rank + 4, ... (while below its lowest set bit), child
/// rank + 2^k holding the block [rank + 2^k, rank + 2^(k+1)).
struct TreeNode {
  int parent = -1;
  std::vector<int> children;
  std::vector<uint32_t> child_ranks;  ///< ranks in each child's block

  TreeNode(int rank, int size) {
    for (int step = 1; step < size; step <<= 1) {
      if ((rank & step) != 0) {
        parent = rank - step;
        break;
      }
      if (rank + step < size) {
        children.push_back(rank + step);
        child_ranks.push_back(static_cast<uint32_t>(std::min(step, size - rank - step)));
      }
    }
  }
};

/// Receives one message of `type` from `source` of whatever length it has.
template <typename T>
std::vector<T> receive(MPI_Comm comm, int source, int tag, MPI_Datatype type, UnificationCost& cost) {
  MPI_Status status;
  PMPI_Probe(source, tag, comm, &status);
  int count = 0;
  PMPI_Get_count(&status, type, &count);
  std::vector<T> data(static_cast<std::size_t>(count > 0 ? count : 0));
  PMPI_Recv(data.data(), count, type, source, tag, comm, MPI_STATUS_IGNORE);
  cost.bytes_received += data.size() * sizeof(T);
  ++cost.messages;
  return data;
}

/// `to_global` applied to a block map: empty (a failure the receiver sees) if
/// any id is out of range.
std::vector<uint32_t> compose(const BlockMap& map, const std::vector<uint32_t>& to_global_regions,
                              const std::vector<uint32_t>& to_global_comms) {
  std::vector<uint32_t> out;
  out.reserve(map.regions.size() + map.comms.size() + 1);
  out.push_back(static_cast<uint32_t>(map.regions.size()));
  for (const uint32_t id : map.regions) {
    if (id >= to_global_regions.size()) return {};
    out.push_back(to_global_regions[id]);
  }
  for (const uint32_t id : map.comms) {
    if (id >= to_global_comms.size()) return {};
    out.push_back(to_global_comms[id]);
  }
  return out;
}

/// Splits a message of compose() into its region and communicator parts.
bool split(const std::vector<uint32_t>& message, std::vector<uint32_t>& regions, std::vector<uint32_t>& comms) {
  if (message.empty() || message[0] > message.size() - 1) return false;
  const auto middle = message.begin() + 1 + message[0];
  regions.assign(message.begin() + 1, middle);
  comms.assign(middle, message.end());
  return true;
}

/// The tree's two passes on this rank; returns false if anything it saw failed.
bool unify_in_tree(MPI_Comm comm, int rank, int size, const DefinitionSet& own, bool own_ok,
                   GlobalDefinitions& global, IdMapping& mapping, UnificationCost& cost) {
  const TreeNode node(rank, size);
  bool ok = own_ok;
  // Up: this rank's definitions, then each child's block in rank order.
  DefinitionUnion block;
  const BlockMap own_map = block.append(own);
  std::vector<BlockMap> child_maps;
  for (std::size_t c = 0; c < node.children.size(); ++c) {
    const auto blob = receive<uint8_t>(comm, node.children[c], kUpTag, MPI_BYTE, cost);
    try {
      child_maps.push_back(block.append(DefinitionSet::decode(blob)));
    } catch (...) {
      ok = false;  // the child's block is lost: its ranks get no ids, the run fails
      block.append_unknown_hosts(node.child_ranks[c]);
      child_maps.emplace_back();
    }
  }
  // Down: the block's ids -> global ids (the root's block ids are the global ids).
  std::vector<uint32_t> to_global_regions;
  std::vector<uint32_t> to_global_comms;
  if (node.parent >= 0) {
    std::vector<uint8_t> blob;
    try {
      if (ok) blob = block.set().encode();
    } catch (...) {
      ok = false;
    }
    PMPI_Send(blob.data(), static_cast<int>(blob.size()), MPI_BYTE, node.parent, kUpTag, comm);
    const auto message = receive<uint32_t>(comm, node.parent, kDownTag, MPI_UINT32_T, cost);
    if (!split(message, to_global_regions, to_global_comms) ||
        to_global_regions.size() != block.set().regions.size() || to_global_comms.size() != block.set().comms.size()) {
      ok = false;
      to_global_regions.clear();
      to_global_comms.clear();
    }
  } else {
    for (uint32_t i = 0; i < block.set().regions.size(); ++i) to_global_regions.push_back(i);
    for (uint32_t i = 0; i < block.set().comms.size(); ++i) to_global_comms.push_back(i);
  }
  for (std::size_t c = 0; c < node.children.size(); ++c) {
    const std::vector<uint32_t> message = compose(child_maps[c], to_global_regions, to_global_comms);
    PMPI_Send(message.data(), static_cast<int>(message.size()), MPI_UINT32_T, node.children[c], kDownTag, comm);
  }
  if (!split(compose(own_map, to_global_regions, to_global_comms), mapping.regions, mapping.comms)) ok = false;
  if (node.parent < 0) {
    try {
      cost.global_definitions_bytes = block.set().encode().size();
    } catch (...) {
      cost.global_definitions_bytes = 0;  // a statistic only
    }
    DefinitionSet all = block.take();
    global.hosts = all.host_per_rank();
    global.regions = std::move(all.regions);
    global.comms = std::move(all.comms);
  }
  return ok;
}

}  // namespace

std::vector<std::vector<uint8_t>> gather_blobs(MPI_Comm comm, const std::vector<uint8_t>& blob) {
  int rank = 0;
  int size = 1;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  int mine = static_cast<int>(blob.size());
  std::vector<int> sizes(static_cast<std::size_t>(size), 0);
  PMPI_Gather(&mine, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, comm);
  std::vector<int> displs(static_cast<std::size_t>(size), 0);
  int total = 0;
  for (int r = 0; r < size; ++r) {
    displs[static_cast<std::size_t>(r)] = total;
    total += sizes[static_cast<std::size_t>(r)];
  }
  std::vector<uint8_t> all(static_cast<std::size_t>(rank == 0 ? total : 0));
  PMPI_Gatherv(blob.data(), mine, MPI_BYTE, all.data(), sizes.data(), displs.data(), MPI_BYTE, 0, comm);
  std::vector<std::vector<uint8_t>> out;
  if (rank == 0) {
    for (int r = 0; r < size; ++r) {
      auto begin = all.begin() + displs[static_cast<std::size_t>(r)];
      out.emplace_back(begin, begin + sizes[static_cast<std::size_t>(r)]);
    }
  }
  return out;
}

bool unify(MPI_Comm comm, const LocalDefinitions& local, const std::string& host,
           GlobalDefinitions& global, IdMapping& mapping, UnificationCost* cost) noexcept {
  const double started = thread_cpu_seconds();
  UnificationCost spent;
  int rank = 0;
  int size = 1;
  PMPI_Comm_rank(comm, &rank);
  PMPI_Comm_size(comm, &size);
  DefinitionSet own;
  bool own_ok = true;
  try {
    own = DefinitionSet::of_rank(local, host);
  } catch (...) {
    own_ok = false;
  }
  int ok = 0;
  try {
    ok = unify_in_tree(comm, rank, size, own, own_ok, global, mapping, spent) ? 1 : 0;
    if (mapping.regions.size() != local.regions().size() || mapping.comms.size() != local.comms().size()) ok = 0;
  } catch (...) {
    ok = 0;  // out of memory mid-tree: a neighbour may wait for a message (as with any collective)
  }
  int all_ok = 0;
  PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
  spent.bytes_received += sizeof(int);
  ++spent.messages;
  spent.cpu_seconds = thread_cpu_seconds() - started;
  if (cost != nullptr) *cost = spent;
  return all_ok == 1;
}

}  // namespace orrery::measure

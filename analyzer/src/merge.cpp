#include "orrery/analyzer/merge.h"

#include <algorithm>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>
#include "vmpi.h"

namespace orrery::analyzer {
namespace {

// Tags of the merge's point-to-point messages on the world communicator.
constexpr int kTreeTag = 0x4f60;
constexpr int kRowsTag = 0x4f61;
constexpr int kPullTag = 0x4f62;
constexpr int kValuesTag = 0x4f63;

/// One non-zero value of a rank, at its row of the cube, of the rank's
/// location `slot` (0: its MPI thread, 1, 2, ...: its other threads).
struct RowValue {
  uint32_t row;
  uint32_t slot;
  double value;
};

/// Receives a vector of T (trivially copyable) of any length from `source`.
template <class T>
std::vector<T> receive_vector(int source, int tag, MPI_Comm world) {
  MPI_Status status;
  vmpi::Probe(source, tag, world, &status);
  int bytes = 0;
  MPI_Get_count(&status, MPI_BYTE, &bytes);
  std::vector<T> data(static_cast<std::size_t>(bytes) / sizeof(T));
  vmpi::Recv(data.data(), bytes, MPI_BYTE, source, tag, world, MPI_STATUS_IGNORE);
  return data;
}

template <class T>
void send_vector(const std::vector<T>& data, int destination, int tag, MPI_Comm world) {
  vmpi::Send(data.data(), static_cast<int>(data.size() * sizeof(T)), MPI_BYTE, destination, tag,
           world);
}

/// A call tree being unified: nodes in order of first appearance (a parent
/// before its children), identified by (parent, region).
class UnifiedTree {
 public:
  explicit UnifiedTree(const std::vector<CallPathNode>& local) { add(local); }

  /// Adds the nodes of `other` (parents first); returns other's node → ours.
  std::vector<uint32_t> add(const std::vector<CallPathNode>& other) {
    std::vector<uint32_t> map;
    map.reserve(other.size());
    for (const CallPathNode& node : other) {
      const uint32_t parent = node.parent == kNone ? kNone : map[node.parent];
      const uint64_t key = (static_cast<uint64_t>(parent) << 32) | node.region;
      auto [it, inserted] = index_.try_emplace(key, static_cast<uint32_t>(nodes_.size()));
      if (inserted) nodes_.push_back(CallPathNode{parent, node.region});
      map.push_back(it->second);
    }
    return map;
  }
  [[nodiscard]] const std::vector<CallPathNode>& nodes() const { return nodes_; }

 private:
  std::vector<CallPathNode> nodes_;
  std::unordered_map<uint64_t, uint32_t> index_;
};

/// Pre-order of `nodes` (children in order of first appearance): the
/// position of every node, and the nodes in that order.
std::pair<std::vector<uint32_t>, std::vector<uint32_t>> pre_order(
    const std::vector<CallPathNode>& nodes) {
  std::vector<std::vector<uint32_t>> children(nodes.size());
  std::vector<uint32_t> roots;
  for (uint32_t n = 0; n < nodes.size(); ++n) {
    (nodes[n].parent == kNone ? roots : children[nodes[n].parent]).push_back(n);
  }
  std::vector<uint32_t> order, position(nodes.size(), 0);
  order.reserve(nodes.size());
  // Iterative depth-first walk (deep call trees must not overflow the stack).
  std::vector<std::pair<uint32_t, std::size_t>> stack;  // (node, next child)
  for (uint32_t root : roots) {
    position[root] = static_cast<uint32_t>(order.size());
    order.push_back(root);
    stack.emplace_back(root, 0);
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      if (next == children[node].size()) {
        stack.pop_back();
        continue;
      }
      const uint32_t child = children[node][next++];
      position[child] = static_cast<uint32_t>(order.size());
      order.push_back(child);
      stack.emplace_back(child, 0);
    }
  }
  return {std::move(position), std::move(order)};
}

}  // namespace

CubeMerge::CubeMerge(const CallTree& tree, const patterns::PatternRegistry& registry,
                     const Definitions& definitions, MPI_Comm world,
                     std::size_t block_values)
    : world_(world), block_values_(block_values) {
  vmpi::Comm_rank(world, &rank_);
  vmpi::Comm_size(world, &size_);

  // Up the binomial tree: rank r receives from r + 1, r + 2, r + 4, ... (as
  // long as that bit of r is clear), then sends its merged tree to its
  // parent. Subtrees arrive in increasing rank order, so every call path
  // keeps its place of first appearance over ranks 0, 1, ..., P-1: the
  // same numbering as one sequential unification on rank 0.
  UnifiedTree merged(tree.nodes());
  std::vector<std::pair<int, std::vector<uint32_t>>> children;  // (rank, its node → ours)
  int parent = -1;
  for (int step = 1; step < size_; step <<= 1) {
    if ((rank_ & step) != 0) {
      parent = rank_ - step;
      send_vector(merged.nodes(), parent, kTreeTag, world);
      break;
    }
    if (rank_ + step < size_) {
      const auto subtree = receive_vector<CallPathNode>(rank_ + step, kTreeTag, world);
      children.emplace_back(rank_ + step, merged.add(subtree));
    }
  }
  // Down the same tree: the cube row of every node of the merged tree.
  std::vector<uint32_t> position, order;
  if (parent < 0) {
    std::tie(position, order) = pre_order(merged.nodes());
  } else {
    position = receive_vector<uint32_t>(parent, kRowsTag, world);
  }
  for (auto it = children.rbegin(); it != children.rend(); ++it) {
    std::vector<uint32_t> rows(it->second.size());
    for (std::size_t n = 0; n < rows.size(); ++n) rows[n] = position[it->second[n]];
    send_vector(rows, it->first, kRowsTag, world);
  }
  // This rank's own call paths are the first nodes of its merged tree.
  rows_.assign(position.begin(), position.begin() + static_cast<std::ptrdiff_t>(tree.size()));
  if (rank_ != 0) return;

  const std::vector<CallPathNode>& nodes = merged.nodes();
  for (const patterns::MetricInfo& info : registry.metric_table()) {
    report::Metric metric;
    metric.name = info.name;
    metric.display_name = info.display_name;
    metric.parent = info.parent.empty() ? -1 : static_cast<int32_t>(registry.row(info.parent));
    metric.unit = info.unit;
    metric.description = info.description;
    metric.diagnosis = info.diagnosis;
    header_.metrics.push_back(std::move(metric));
  }
  for (const RegionDef& def : definitions.regions) {
    header_.regions.push_back(report::Region{def.name, def.file, def.line, paradigm_name(def.paradigm)});
  }
  for (uint32_t n : order) {
    const int32_t up =
        nodes[n].parent == kNone ? -1 : static_cast<int32_t>(position[nodes[n].parent]);
    header_.callpaths.push_back(report::Callpath{up, static_cast<int32_t>(nodes[n].region)});
  }
  for (int r = 0; r < size_; ++r) {
    const RankDef& def = definitions.ranks[static_cast<std::size_t>(r)];
    first_location_.push_back(static_cast<uint32_t>(header_.locations.size()));
    header_.locations.push_back(report::Location{r, 0, def.host, "rank " + std::to_string(r)});
    // A rank's other threads follow it (docs/design.md §5: /locations thread).
    const auto r_index = static_cast<std::size_t>(r);
    for (const ThreadDef& thread : r_index < definitions.threads.size() ? definitions.threads[r_index]
                                                                       : std::vector<ThreadDef>{}) {
      header_.locations.push_back(report::Location{r, static_cast<int32_t>(thread.number), def.host,
                                                   "rank " + std::to_string(r) + " thread " +
                                                       std::to_string(thread.number)});
    }
  }
  first_location_.push_back(static_cast<uint32_t>(header_.locations.size()));
}

report::MetricValues CubeMerge::gather_metric(std::size_t metric, const patterns::SeverityMap& severities,
                                              const std::vector<patterns::SeverityMap>* threads) const {
  // This rank's non-zero values at their cube rows, of each of its locations.
  std::vector<RowValue> mine;
  const auto collect = [&](const patterns::SeverityMap& map, uint32_t slot) {
    const auto& local = map.metric(metric);
    for (std::size_t c = 0; c < local.size() && c < rows_.size(); ++c) {
      if (local[c] != 0.0) mine.push_back(RowValue{rows_[c], slot, local[c]});
    }
  };
  collect(severities, 0);
  if (threads != nullptr) {
    for (std::size_t t = 0; t < threads->size(); ++t) collect((*threads)[t], static_cast<uint32_t>(t + 1));
  }
  if (rank_ != 0) {
    // Wait to be asked, so that rank 0 receives one block of ranks at a time.
    vmpi::Recv(nullptr, 0, MPI_BYTE, 0, kPullTag, world_, MPI_STATUS_IGNORE);
    send_vector(mine, 0, kValuesTag, world_);
    return {};
  }
  const std::size_t n_locations = header_.locations.size();
  report::MetricValues values(header_.callpaths.size() * n_locations, 0.0);
  const auto put = [&](const std::vector<RowValue>& from, std::size_t rank) {
    const std::size_t first = first_location_[rank];
    const std::size_t slots = first_location_[rank + 1] - first;
    for (const RowValue& v : from) {
      if (v.row < header_.callpaths.size() && v.slot < slots) {
        values[static_cast<std::size_t>(v.row) * n_locations + first + v.slot] += v.value;
      }
    }
  };
  put(mine, 0);
  const std::size_t block =
      std::max<std::size_t>(1, block_values_ / std::max<std::size_t>(1, header_.callpaths.size()));
  std::vector<MPI_Request> asks;
  for (int first = 1; first < size_; first += static_cast<int>(block)) {
    const int last = std::min(size_, first + static_cast<int>(block));
    asks.assign(static_cast<std::size_t>(last - first), MPI_REQUEST_NULL);
    for (int r = first; r < last; ++r) {
      vmpi::Isend(nullptr, 0, MPI_BYTE, r, kPullTag, world_, &asks[static_cast<std::size_t>(r - first)]);
    }
    for (int r = first; r < last; ++r) {
      put(receive_vector<RowValue>(r, kValuesTag, world_), static_cast<std::size_t>(r));
    }
    vmpi::Waitall(static_cast<int>(asks.size()), asks.data(), MPI_STATUSES_IGNORE);
  }
  return values;
}

}  // namespace orrery::analyzer

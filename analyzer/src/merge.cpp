#include "orrery/analyzer/merge.h"

#include <cstring>
#include <functional>
#include <map>
#include <vector>

namespace orrery::analyzer {
namespace {

const char* paradigm_name(Paradigm paradigm) {
  switch (paradigm) {
    case Paradigm::kMpi: return "mpi";
    case Paradigm::kCompiler: return "compiler";
    case Paradigm::kMeasurement: return "measurement";
    default: return "user";
  }
}

/// Gathers variable-length vectors of T on root (T trivially copyable).
template <class T>
std::vector<std::vector<T>> gather(const std::vector<T>& local, MPI_Comm world, int rank,
                                   int size) {
  const int bytes = static_cast<int>(local.size() * sizeof(T));
  std::vector<int> counts(static_cast<std::size_t>(size)), displs(static_cast<std::size_t>(size));
  MPI_Gather(&bytes, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, world);
  std::vector<char> buffer;
  if (rank == 0) {
    int total = 0;
    for (int r = 0; r < size; ++r) {
      displs[static_cast<std::size_t>(r)] = total;
      total += counts[static_cast<std::size_t>(r)];
    }
    buffer.resize(static_cast<std::size_t>(total));
  }
  MPI_Gatherv(local.data(), bytes, MPI_BYTE, buffer.data(), counts.data(), displs.data(),
              MPI_BYTE, 0, world);
  std::vector<std::vector<T>> result;
  if (rank != 0) return result;
  for (int r = 0; r < size; ++r) {
    const auto ru = static_cast<std::size_t>(r);
    std::vector<T> part(static_cast<std::size_t>(counts[ru]) / sizeof(T));
    std::memcpy(part.data(), buffer.data() + displs[ru], static_cast<std::size_t>(counts[ru]));
    result.push_back(std::move(part));
  }
  return result;
}

}  // namespace

CubeMerge::CubeMerge(const CallTree& tree, const patterns::PatternRegistry& registry,
                     const Definitions& definitions, MPI_Comm world)
    : world_(world) {
  MPI_Comm_rank(world, &rank_);
  MPI_Comm_size(world, &size_);

  std::vector<uint32_t> local_tree;
  for (const CallPathNode& node : tree.nodes()) {
    local_tree.push_back(node.parent);
    local_tree.push_back(node.region);
  }
  const auto trees = gather(local_tree, world, rank_, size_);
  if (rank_ != 0) return;

  // Unify: a call path is its parent's unified id plus its region.
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> unified;
  std::vector<CallPathNode> nodes;
  std::vector<std::vector<uint32_t>> local_to_unified(static_cast<std::size_t>(size_));
  for (int r = 0; r < size_; ++r) {
    const auto& t = trees[static_cast<std::size_t>(r)];
    auto& map = local_to_unified[static_cast<std::size_t>(r)];
    for (std::size_t i = 0; i + 1 < t.size(); i += 2) {
      const uint32_t parent = t[i] == kNone ? kNone : map[t[i]];
      auto [it, inserted] =
          unified.try_emplace({parent, t[i + 1]}, static_cast<uint32_t>(nodes.size()));
      if (inserted) nodes.push_back(CallPathNode{parent, t[i + 1]});
      map.push_back(it->second);
    }
  }
  // Pre-order: children in order of first appearance.
  std::vector<std::vector<uint32_t>> children(nodes.size());
  std::vector<uint32_t> roots;
  for (uint32_t n = 0; n < nodes.size(); ++n) {
    (nodes[n].parent == kNone ? roots : children[nodes[n].parent]).push_back(n);
  }
  std::vector<uint32_t> order(nodes.size());
  std::vector<int32_t> position(nodes.size(), -1);
  uint32_t next = 0;
  std::function<void(uint32_t)> visit = [&](uint32_t n) {
    position[n] = static_cast<int32_t>(next);
    order[next++] = n;
    for (uint32_t c : children[n]) visit(c);
  };
  for (uint32_t r : roots) visit(r);

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
    const int32_t parent = nodes[n].parent == kNone ? -1 : position[nodes[n].parent];
    header_.callpaths.push_back(report::Callpath{parent, static_cast<int32_t>(nodes[n].region)});
  }
  for (int r = 0; r < size_; ++r) {
    const RankDef& def = definitions.ranks[static_cast<std::size_t>(r)];
    header_.locations.push_back(report::Location{r, 0, def.host, "rank " + std::to_string(r)});
  }
  // Each rank's local call path → its row in the cube.
  rows_.resize(static_cast<std::size_t>(size_));
  for (int r = 0; r < size_; ++r) {
    const auto ru = static_cast<std::size_t>(r);
    for (uint32_t local : local_to_unified[ru]) {
      rows_[ru].push_back(static_cast<uint32_t>(position[local]));
    }
  }
}

report::MetricValues CubeMerge::gather_metric(std::size_t metric,
                                              const patterns::SeverityMap& severities) const {
  const auto gathered = gather(severities.metric(metric), world_, rank_, size_);
  if (rank_ != 0) return {};
  const std::size_t n_locations = header_.locations.size();
  report::MetricValues values(header_.callpaths.size() * n_locations, 0.0);
  for (std::size_t r = 0; r < gathered.size(); ++r) {
    const auto& local = gathered[r];
    const auto& rows = rows_[r];
    for (std::size_t c = 0; c < local.size() && c < rows.size(); ++c) {
      values[static_cast<std::size_t>(rows[c]) * n_locations + r] += local[c];
    }
  }
  return values;
}

}  // namespace orrery::analyzer

#pragma once
// The merge on the master, in memory bounded independently of the rank
// count P except for the output itself (docs/design.md §4):
//   call trees  unified by region path (docs/design.md §5) along a binomial tree of
//               ranks: in log2(P) rounds each rank merges the trees of its
//               subtree, rank 0 numbers the unified call paths in pre-order,
//               and the numbers travel back down the same tree. No rank
//               holds more than the unified tree; nobody gathers P trees.
//   severities  one metric at a time, and per metric a stream of blocks of
//               ranks: rank 0 asks each rank of a block in turn for its
//               non-zero values, already as (cube row, value), so it never
//               holds more than one block of received values besides the
//               metric it is filling.

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "orrery/trace/call_tree.h"
#include "orrery/trace/trace.h"
#include "orrery/patterns/registry.h"
#include "orrery/report/cube.h"

namespace orrery::analyzer {

/// The unified call tree and the cube header (rank 0), then metric by metric.
class CubeMerge {
 public:
  /// Values rank 0 receives per block of ranks (the bound of the stream).
  static constexpr std::size_t kBlockValues = std::size_t{1} << 20;

  /// Collective over `world`: unifies the call trees. `block_values` bounds
  /// the values rank 0 asks for at once (at least one rank per block).
  CubeMerge(const CallTree& tree, const patterns::PatternRegistry& registry,
            const Definitions& definitions, MPI_Comm world,
            std::size_t block_values = kBlockValues);
  /// The cube's header on rank 0 (call paths in pre-order); empty elsewhere.
  [[nodiscard]] const report::CubeHeader& header() const { return header_; }
  /// Collective: metric `metric` of every rank; on rank 0 its values
  /// [callpath][location], empty elsewhere. `threads`: the severities of
  /// this rank's other threads (Definitions::threads order), if any.
  [[nodiscard]] report::MetricValues gather_metric(
      std::size_t metric, const patterns::SeverityMap& severities,
      const std::vector<patterns::SeverityMap>* threads = nullptr) const;
  /// This rank's local call path → row of the cube (pre-order of the unified tree).
  [[nodiscard]] const std::vector<uint32_t>& rows() const { return rows_; }

 private:
  MPI_Comm world_;
  int rank_ = 0;
  int size_ = 0;
  std::size_t block_values_;
  report::CubeHeader header_;
  std::vector<uint32_t> rows_;
  /// Rank 0: the cube location of each rank's MPI thread (its threads
  /// follow), plus one past the last location.
  std::vector<uint32_t> first_location_;
};

}  // namespace orrery::analyzer

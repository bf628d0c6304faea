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

/// A rank's values as the merge serves them to rank 0: its severities, its
/// other threads' (Definitions::threads order), and the metric rows whose sum
/// is the `time` rank 0 may ask for (CubeMerge::kTimeSum).
struct LocalValues {
  const patterns::SeverityMap* severities = nullptr;
  const std::vector<patterns::SeverityMap>* threads = nullptr;
  std::vector<std::size_t> time_rows;  ///< ascending
};

/// Values of one block of locations, on rank 0: for each value asked for
/// (a metric row or the time sum), [callpath][location - first].
struct ValueBlock {
  std::size_t first = 0;      ///< first location
  std::size_t count = 0;      ///< locations
  std::size_t callpaths = 0;
  std::vector<double> values; ///< [asked][callpath][count]
  [[nodiscard]] double* of(std::size_t asked) { return values.data() + asked * callpaths * count; }
  [[nodiscard]] const double* of(std::size_t asked) const {
    return values.data() + asked * callpaths * count;
  }
};

/// From this many values in one metric (call paths x locations: 32 MiB) a
/// cube is large: rank 0 writes it block by block instead of one metric at
/// a time (orrery-analyze; docs/analyzer.md, "Scale").
inline constexpr std::size_t kLargeCubeValues = std::size_t{1} << 22;

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

  // Values on request (merge_values.cpp): rank 0 asks the ranks of one block
  // for some metric rows at a time, as often as it needs them; the other
  // ranks serve until rank 0 says it is done.
  /// What rank 0 may ask for besides metric rows: the sum of LocalValues::time_rows.
  static constexpr int32_t kTimeSum = -1;
  /// Rank 0: the blocks of ranks it asks at once ([first, end) rank ranges):
  /// about block_values values (call paths x locations) each, one rank at least.
  [[nodiscard]] std::vector<std::pair<int, int>> rank_blocks() const;
  /// Rank 0: (first location, locations) of the ranks [first, end).
  [[nodiscard]] std::pair<std::size_t, std::size_t> block_locations(std::pair<int, int> ranks) const;
  /// Rank 0: the values `asked` (metric rows or kTimeSum) of the ranks
  /// [first, end): from this rank's own `mine` if it is among them, from the
  /// others by request.
  [[nodiscard]] ValueBlock fetch(std::pair<int, int> ranks, const std::vector<int32_t>& asked,
                                 const LocalValues& mine) const;
  /// Ranks other than 0: answers rank 0's requests until it says done.
  void serve(const LocalValues& mine) const;
  /// Rank 0: tells every other rank that nothing more will be asked.
  void done() const;
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

  /// Answers one request; false if it was "done".
  bool serve_one(const LocalValues& mine) const;
};

}  // namespace orrery::analyzer

#pragma once
// Rank 0's merge of a large cube (one metric more than its memory budget):
// every metric travels as a stream of blocks of locations and is written
// block by block (CubeWriter::write_columns), so rank 0 holds one block, not
// one metric. The metrics that compare the processes of a call path
// (balance_metrics.h) need every location of it: they are derived in passes
// over the blocks, first per-call-path totals (report/balance.h), then the
// values block by block, asking the ranks again for their inputs (critical
// path, time, computation, visits) — the same values, bit for bit, as
// BalanceMetrics derives from whole metrics.

#include <functional>
#include <vector>

#include "orrery/analyzer/balance_metrics.h"
#include "orrery/analyzer/merge.h"
#include "orrery/report/balance.h"

namespace orrery::analyzer {

class LargeCubeMerge {
 public:
  /// `lost`: locations without a trace (their values are NaN).
  LargeCubeMerge(const CubeMerge& merge, const report::CubeHeader& header,
                 const patterns::PatternRegistry& registry, const LocalValues& mine,
                 const std::vector<uint32_t>& lost);
  /// Metric row `metric`, block after block in location order: `take` gets
  /// its final values ([callpath][count]: absent locations NaN, derived
  /// metrics derived).
  void metric(std::size_t metric, const std::function<void(const ValueBlock&)>& take);
  /// The function groups of the cube's time (two more passes over the blocks).
  [[nodiscard]] report::FunctionGroups groups(const std::vector<report::GroupRule>& rules);
  /// As BalanceMetrics::path_entries, after every metric went by.
  [[nodiscard]] std::vector<BalanceMetrics::PathEntry> path_entries(std::size_t top) const;

 private:
  /// The values `asked` of block `b`, absent locations NaN.
  [[nodiscard]] ValueBlock fetch(std::size_t b, const std::vector<int32_t>& asked) const;
  void prepare_critical_path();
  void prepare_imbalance();
  /// Block `b` of a derived metric (`part`: its index in critical_path_at / imbalance_at).
  [[nodiscard]] ValueBlock critical_path_block(std::size_t b, std::size_t part);
  [[nodiscard]] ValueBlock imbalance_block(std::size_t b, std::size_t part);

  const CubeMerge& merge_;
  const report::CubeHeader& header_;
  const LocalValues& mine_;
  std::vector<std::pair<int, int>> blocks_;
  std::vector<bool> absent_;  ///< per location
  std::vector<bool> ranks_;   ///< per location: a process's MPI thread
  int32_t execution_, visits_, critical_path_, critical_imbalance_, impact_, imbalance_;
  std::vector<int32_t> imbalance_parts_;  ///< metric rows in imbalance_at's order
  std::vector<report::CriticalPathTotals> critical_totals_;  ///< per call path, once prepared
  std::vector<report::ImbalanceTotals> imbalance_totals_;   ///< per call path, once prepared
  std::vector<BalanceMetrics::PathEntry> entries_;    ///< per call path
  std::vector<double> most_;                          ///< per call path: its largest critical value
};

}  // namespace orrery::analyzer

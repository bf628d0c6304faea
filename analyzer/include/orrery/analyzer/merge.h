#pragma once
// The merge on the master: gathers every rank's call tree, unifies the call
// trees by region path (DESIGN §5), then gathers the severities one metric at
// a time, so that rank 0 needs one metric of the cube in memory, not all.

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "orrery/analyzer/call_tree.h"
#include "orrery/analyzer/trace.h"
#include "orrery/patterns/registry.h"
#include "orrery/report/cube.h"

namespace orrery::analyzer {

/// The unified call tree and the cube header (rank 0), then metric by metric.
class CubeMerge {
 public:
  /// Collective over `world`: gathers and unifies the call trees.
  CubeMerge(const CallTree& tree, const patterns::PatternRegistry& registry,
            const Definitions& definitions, MPI_Comm world);
  /// The cube's header on rank 0 (call paths in pre-order); empty elsewhere.
  [[nodiscard]] const report::CubeHeader& header() const { return header_; }
  /// Collective: metric `metric` of every rank; on rank 0 its values
  /// [callpath][location], empty elsewhere.
  [[nodiscard]] report::MetricValues gather_metric(std::size_t metric,
                                                   const patterns::SeverityMap& severities) const;

 private:
  MPI_Comm world_;
  int rank_ = 0;
  int size_ = 0;
  report::CubeHeader header_;
  std::vector<std::vector<uint32_t>> rows_;  ///< per rank: local call path → cube row
};

}  // namespace orrery::analyzer

// Wait at Neighbour: in a neighbourhood collective a process waits only for
// its in-neighbours (the ranks it receives from in the communicator's
// topology), not for the whole communicator: the N x N formula would count
// the data transfer after the last in-neighbour arrived as waiting whenever
// a non-neighbour arrives later still.

#include <algorithm>

#include "all_patterns.h"
#include "orrery/replay/replay_events.h"

namespace orrery::patterns {
namespace {

using analyzer::CollectiveCompleted;
using analyzer::CollectiveKind;

class WaitAtNeighborPattern final : public Pattern {
 public:
  [[nodiscard]] MetricInfo info() const override {
    return {"wait_at_neighbor", "Wait at Neighbour", "sec", "mpi_collective",
            "Time in a neighbourhood collective (MPI_Neighbor_*, MPI_Ineighbor_*) before the "
            "last of the process's in-neighbours entered it: min(latest enter of the "
            "in-neighbours, exit(self)) - enter(self). The in-neighbours come from the "
            "topology recorded at MPI_Cart_create / MPI_Graph_create / "
            "MPI_Dist_graph_create*; without it, all members count.",
            "A neighbour arrives late: balance the work of neighbouring processes (the "
            "domain decomposition), or start the exchange with the non-blocking variant "
            "and overlap it with work that needs no halo.",
            MetricKind::kWaitState};
  }
  void attach(PatternContext& context) override {
    const auto* ctx = &context;
    context.bus.subscribe<CollectiveCompleted>([this, ctx](const CollectiveCompleted& e) {
      if (e.kind != CollectiveKind::kNeighbor || e.participants < 2) return;
      const int64_t latest = e.in_neighbors_known ? e.latest_enter_of_in_neighbors : e.latest_enter;
      if (latest == INT64_MIN) return;  // no in-neighbours: nothing to wait for
      const int64_t waiting = std::min(latest, e.call.exit) - e.call.enter;
      if (waiting > 0) {
        ctx->severities.add(row(), e.call.callpath,
                            static_cast<double>(waiting) * ctx->seconds_per_tick);
      }
    });
  }
};

}  // namespace

std::unique_ptr<Pattern> make_wait_at_neighbor() {
  return std::make_unique<WaitAtNeighborPattern>();
}

}  // namespace orrery::patterns

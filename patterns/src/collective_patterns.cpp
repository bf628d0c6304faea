// Wait states in collective operations, each computed from the group-wide
// values (latest enter, earliest exit, the root's enter, ...) that the
// collective replay reduced once over the instance's communicator.
// For a non-blocking collective the process is only blocked inside the wait
// that completes it, so the waiting is counted from that wait's enter.

#include <algorithm>
#include <functional>

#include "all_patterns.h"
#include "orrery/replay/replay_events.h"

namespace orrery::patterns {
namespace {

using analyzer::CollectiveCompleted;
using analyzer::CollectiveKind;

/// Waiting in ticks for one collective instance, or <= 0 for none.
using Formula = std::function<int64_t(const CollectiveCompleted&)>;

int64_t latest_enter(const CollectiveCompleted& e) { return e.latest_enter; }
int64_t earliest_exit(const CollectiveCompleted& e) { return e.earliest_exit; }

/// Waiting until `ready`, clipped to the completing call.
int64_t wait_until(const CollectiveCompleted& e, int64_t ready) {
  if (ready == INT64_MIN) return 0;  // nobody to wait for (members disagreed on the root)
  return std::min(ready, e.call.exit) - e.call.enter;
}

/// Time after the first process left: exit(self) - max(earliest exit, min(latest enter, exit(self))).
int64_t completion(const CollectiveCompleted& e) {
  const int64_t end_of_wait = std::max(std::min(latest_enter(e), e.call.exit), e.call.enter);
  return e.call.exit - std::max(earliest_exit(e), end_of_wait);
}

/// A collective wait-state pattern: metadata plus which collectives it
/// applies to and its formula.
class CollectivePattern final : public Pattern {
 public:
  CollectivePattern(MetricInfo info, CollectiveKind kind, Formula formula,
                    CollectiveKind also = CollectiveKind::kOther)
      : info_(std::move(info)), kind_(kind), also_(also), formula_(std::move(formula)) {}

  [[nodiscard]] MetricInfo info() const override { return info_; }
  void attach(PatternContext& context) override {
    const auto* ctx = &context;
    context.bus.subscribe<CollectiveCompleted>([this, ctx](const CollectiveCompleted& e) {
      if (e.kind != kind_ && (also_ == CollectiveKind::kOther || e.kind != also_)) return;
      if (e.participants < 2) return;
      const int64_t waiting = formula_(e);
      if (waiting > 0) {
        ctx->severities.add(row(), e.call.callpath,
                            static_cast<double>(waiting) * ctx->seconds_per_tick);
      }
    });
  }

 private:
  MetricInfo info_;
  CollectiveKind kind_;
  CollectiveKind also_;
  Formula formula_;
};

}  // namespace

std::unique_ptr<Pattern> make_wait_at_barrier() {
  return std::make_unique<CollectivePattern>(
      MetricInfo{"wait_at_barrier", "Wait at Barrier", "sec", "mpi_sync_collective",
                 "Time in a barrier before the last process entered it: "
                 "min(latest enter, exit(self)) - enter(self).",
                 "The processes arrive at different times: balance the work before the "
                 "barrier, or remove the barrier if it is not needed for correctness.",
                 MetricKind::kWaitState},
      CollectiveKind::kBarrier,
      [](const CollectiveCompleted& e) { return wait_until(e, latest_enter(e)); });
}

std::unique_ptr<Pattern> make_barrier_completion() {
  return std::make_unique<CollectivePattern>(
      MetricInfo{"barrier_completion", "Barrier Completion", "sec", "mpi_sync_collective",
                 "Time in a barrier after the first process left it: exit(self) - "
                 "max(earliest exit, min(latest enter, exit(self))).",
                 "This is the cost of the barrier's implementation; large values point to "
                 "an overloaded or oversubscribed machine.",
                 MetricKind::kWaitState},
      CollectiveKind::kBarrier, completion);
}

std::unique_ptr<Pattern> make_wait_at_nxn() {
  return std::make_unique<CollectivePattern>(
      MetricInfo{"wait_at_nxn", "Wait at N x N", "sec", "mpi_collective",
                 "Time in an n-to-n collective (Allreduce, Allgather, Alltoall, "
                 "Reduce_scatter) before the last process entered it: "
                 "min(latest enter, exit(self)) - enter(self).",
                 "The processes reach the collective at different times: balance the work "
                 "before it, or use the non-blocking variant and overlap it with work.",
                 MetricKind::kWaitState},
      CollectiveKind::kAllToAll,
      [](const CollectiveCompleted& e) { return wait_until(e, latest_enter(e)); });
}

std::unique_ptr<Pattern> make_nxn_completion() {
  return std::make_unique<CollectivePattern>(
      MetricInfo{"nxn_completion", "N x N Completion", "sec", "mpi_collective",
                 "Time in an n-to-n collective after the first process left it (as barrier "
                 "completion).",
                 "Usually the collective's own data movement; reduce the data volume or the "
                 "number of calls.",
                 MetricKind::kWaitState},
      CollectiveKind::kAllToAll, completion);
}

std::unique_ptr<Pattern> make_late_broadcast() {
  return std::make_unique<CollectivePattern>(
      MetricInfo{"late_broadcast", "Late Broadcast", "sec", "mpi_collective",
                 "In 1-to-n collectives (Bcast, Scatter(v)), time a non-root waited for the "
                 "root to enter: min(enter(root), exit(self)) - enter(self).",
                 "The root arrives late: move work off the root before the broadcast, or "
                 "start the broadcast earlier on the root.",
                 MetricKind::kWaitState},
      CollectiveKind::kOneToAll, [](const CollectiveCompleted& e) -> int64_t {
        if (e.root == analyzer::kNone || e.root >= e.participants || e.my_rank == e.root) {
          return 0;
        }
        return wait_until(e, e.root_enter);
      });
}

std::unique_ptr<Pattern> make_early_reduce() {
  return std::make_unique<CollectivePattern>(
      MetricInfo{"early_reduce", "Early Reduce", "sec", "mpi_collective",
                 "In n-to-1 collectives (Reduce, Gather(v)), time the root waited for the "
                 "last of the other processes to enter: min(latest enter of the others, "
                 "exit(root)) - enter(root).",
                 "The root arrives first and waits: give the root more work before the "
                 "reduction, or balance the work of the others.",
                 MetricKind::kWaitState},
      CollectiveKind::kAllToOne, [](const CollectiveCompleted& e) -> int64_t {
        if (e.root == analyzer::kNone || e.my_rank != e.root) return 0;
        return wait_until(e, e.latest_enter_of_others);
      });
}

std::unique_ptr<Pattern> make_early_scan() {
  return std::make_unique<CollectivePattern>(
      MetricInfo{"early_scan", "Early Scan", "sec", "mpi_collective",
                 "In Scan/Exscan, time rank n waited for the latest of ranks 0..n-1 to "
                 "enter: min(latest enter of lower ranks, exit(self)) - enter(self).",
                 "Higher ranks arrive before lower ones: balance the work before the scan.",
                 MetricKind::kWaitState},
      CollectiveKind::kScan,
      [](const CollectiveCompleted& e) -> int64_t {
        if (e.my_rank == 0) return 0;
        return wait_until(e, e.latest_enter_below);
      },
      CollectiveKind::kExscan);
}

std::unique_ptr<Pattern> make_init_completion() {
  return std::make_unique<CollectivePattern>(
      MetricInfo{"init_completion", "Init Completion", "sec", "mpi_init_exit",
                 "Time in MPI_Init/MPI_Init_thread spent waiting for the last process to "
                 "start: min(latest enter, exit(self)) - enter(self). MPI_Init returns only "
                 "when every process has arrived.",
                 "The processes start at different times: the launcher places them slowly "
                 "(many nodes, a slow file system loading the binary and its libraries), or "
                 "some do work before MPI_Init (reading input, setting up). Move such work "
                 "after MPI_Init, or stage the binary on local disks.",
                 MetricKind::kWaitState},
      CollectiveKind::kInit,
      [](const CollectiveCompleted& e) { return wait_until(e, latest_enter(e)); });
}

std::unique_ptr<Pattern> make_finalize_wait() {
  return std::make_unique<CollectivePattern>(
      MetricInfo{"finalize_wait", "Wait at Finalize", "sec", "mpi_init_exit",
                 "Time in MPI_Finalize spent waiting for the last process to arrive: "
                 "min(latest enter, exit(self)) - enter(self). MPI_Finalize synchronizes "
                 "all processes.",
                 "A process finalized late: it had more work at the end (writing results, "
                 "I/O or cleanup on one rank, an unbalanced last step). Spread the final "
                 "output over the processes (MPI I/O) or balance the last step; look at what "
                 "the latest process did before MPI_Finalize.",
                 MetricKind::kWaitState},
      CollectiveKind::kFinalize,
      [](const CollectiveCompleted& e) { return wait_until(e, latest_enter(e)); });
}

}  // namespace orrery::patterns

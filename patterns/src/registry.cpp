// The registry: every metric of docs/design.md §4, listed once, a parent before its
// children. Category metrics (the time tree's inner nodes and MPI call
// classes) are metadata only; TimePattern fills them.

#include "orrery/patterns/registry.h"

#include <stdexcept>
#include <string>

#include "all_patterns.h"

namespace orrery::patterns {
namespace {

std::unique_ptr<Pattern> category(const char* name, const char* display, const char* parent,
                                  const char* description, const char* diagnosis) {
  return make_category(
      MetricInfo{name, display, "sec", parent, description, diagnosis, MetricKind::kCategory});
}

}  // namespace

PatternRegistry::PatternRegistry() {
  auto add = [this](std::unique_ptr<Pattern> pattern) { patterns_.push_back(std::move(pattern)); };
  add(make_time());
  add(category("execution", "Execution", "time", "Time not spent in measurement overhead.",
               "Expand to separate computation from MPI."));
  add(category("mpi", "MPI", "execution", "Time inside MPI calls.",
               "A large share of MPI time means communication or waiting dominates: look at "
               "its wait-state children first."));
  add(category("mpi_management", "Management", "mpi",
               "Communicator, group, datatype, file and window management.",
               "Create communicators, datatypes and windows once, outside loops."));
  add(category("mpi_init_exit", "Init/Exit", "mpi_management", "MPI_Init*, MPI_Finalize.",
               "Start-up and shut-down cost; large values at finalize often hide waiting for "
               "the slowest process."));
  add(make_init_completion());
  add(make_finalize_wait());
  add(category("mpi_synchronization", "Synchronization", "mpi",
               "Barriers and point-to-point calls that carry no data.",
               "Question every synchronization: most barriers are not needed for "
               "correctness."));
  add(category("mpi_sync_collective", "Collective Synchronization", "mpi_synchronization",
               "MPI_Barrier (and MPI_Ibarrier).", "See Wait at Barrier."));
  add(make_wait_at_barrier());
  add(make_barrier_completion());
  add(category("mpi_rma_synchronization", "RMA Synchronization", "mpi_synchronization",
               "One-sided synchronization: fences, post/start/complete/wait, locks, flushes.",
               "Prefer passive-target locks or fewer fences; synchronize only the processes "
               "that communicate."));
  add(category("mpi_communication", "Communication", "mpi", "Data-moving MPI calls.",
               "Expand to see whether point-to-point or collective calls dominate."));
  add(category("mpi_point2point", "Point-to-point", "mpi_communication",
               "Sends, receives, waits and tests.",
               "Time here that is not a wait state is transfer time: send fewer or larger "
               "messages."));
  add(make_late_sender());
  add(make_late_sender_wrong_order());
  add(make_late_receiver());
  add(category("mpi_collective", "Collective", "mpi_communication",
               "Collective calls other than barriers.",
               "Time here that is not a wait state is the collective's own cost."));
  add(make_early_reduce());
  add(make_early_scan());
  add(make_late_broadcast());
  add(make_wait_at_nxn());
  add(make_nxn_completion());
  add(make_wait_at_neighbor());
  add(category("mpi_rma_communication", "RMA Communication", "mpi_communication",
               "MPI_Put, MPI_Get, MPI_Accumulate and their kin.",
               "Aggregate small one-sided operations."));
  add(category("mpi_io", "MPI I/O", "mpi", "MPI_File_* reads and writes.",
               "Use collective I/O (the _all variants) and larger requests."));
  add(category("omp", "OpenMP", "execution",
               "Time inside the OpenMP runtime: parallel regions' management, barriers, critical "
               "sections and locks (hybrid programs).",
               "Expand to see how much of it was waiting at barriers (load imbalance between "
               "threads) and which critical sections were contended."));
  add(make_omp_barrier_wait());
  add(category("overhead", "Overhead", "time",
               "The measurement's own work inside the run (buffer flushes, ...).",
               "Increase the measurement buffer (orrery run --buffer) or filter short, "
               "frequent regions."));
  add(make_visits());
  add(make_bytes_sent());
  add(make_bytes_received());
  add(make_bytes_coll_out());
  add(make_bytes_coll_in());
  add(make_sends());
  add(make_receives());
  add(make_collectives());
  add(make_late_sender_count());
  add(make_late_receiver_count());
  add_delay_metrics(add);
  add(make_omp_idle_threads());
  add_critical_path_metrics(add);
  add_imbalance_metrics(add);

  for (std::size_t i = 0; i < patterns_.size(); ++i) {
    patterns_[i]->set_row(i);
    infos_.push_back(patterns_[i]->info());
  }
  for (std::size_t i = 0; i < infos_.size(); ++i) {
    if (!infos_[i].parent.empty() && row(infos_[i].parent) >= i) {
      throw std::logic_error("metric " + infos_[i].name + " is listed before its parent");
    }
  }
}

std::vector<MetricInfo> PatternRegistry::metric_table() const { return infos_; }

std::size_t PatternRegistry::row(std::string_view name) const {
  for (std::size_t i = 0; i < infos_.size(); ++i) {
    if (infos_[i].name == name) return i;
  }
  throw std::out_of_range("unknown metric " + std::string(name));
}

int PatternRegistry::parent_row(std::size_t row_index) const {
  const std::string& parent = infos_[row_index].parent;
  return parent.empty() ? -1 : static_cast<int>(row(parent));
}

void PatternRegistry::attach_all(PatternContext& context) const {
  for (const auto& pattern : patterns_) pattern->attach(context);
}

void PatternRegistry::finish_all(PatternContext& context) const {
  for (const auto& pattern : patterns_) pattern->finish(context);
}

}  // namespace orrery::patterns

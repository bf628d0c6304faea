// Scalasca's load-imbalance heuristic (docs/design.md §4 `imbalance` and its
// children). Each value depends on every process's computation time of the
// call path, so the analyzer derives them on the master after the merge
// (report/balance.h: imbalance_parts has the formulas); here only their
// metadata. `imbalance` itself holds 0: its children hold the parts.

#include <utility>

#include "all_patterns.h"

namespace orrery::patterns {
namespace {

MetricInfo metric(const char* name, const char* display, const char* parent,
                  const char* description, const char* diagnosis) {
  return MetricInfo{name, display, "sec", parent, description, diagnosis, MetricKind::kCounter};
}

}  // namespace

void add_imbalance_metrics(const std::function<void(std::unique_ptr<Pattern>)>& add) {
  add(make_category(metric(
      "imbalance", "Computational Imbalance", "",
      "Scalasca's load-imbalance heuristic per call path and process: the absolute difference "
      "of the process's computation time (exclusive, outside MPI and OpenMP) at the call path "
      "from the mean over the processes that visited it (aggregate: see its parts).",
      "Large values mean some processes computed much more than others here: the others wait "
      "for them at the next synchronization. Look at Overload to find them.")));
  add(make_category(metric(
      "imbalance_above", "Overload", "imbalance",
      "How much longer this process computed at the call path than the mean of the processes "
      "that visited it: t - mean when positive (two or more visitors).",
      "These processes hold too much work here: move part of it to the underloaded ones.")));
  add(make_category(metric(
      "imbalance_above_single", "Single Participant", "imbalance_above",
      "The call path ran on this process only: its time beyond an even share over all "
      "processes, t x (P - 1) / P.",
      "Serial work on one process: parallelize it, or overlap it with the others' work.")));
  add(make_category(metric(
      "imbalance_below", "Underload", "imbalance",
      "How much shorter this process computed at the call path than the mean of the processes "
      "that visited it: mean - t when positive.",
      "These processes have spare time here: give them more of the work.")));
  add(make_category(metric(
      "imbalance_below_bypass", "Non-participation", "imbalance_below",
      "This process did not visit the call path while two or more others did: the visitors' "
      "mean is its underload.",
      "Work that skips some processes: distribute it over all of them if it can be.")));
  add(make_category(metric(
      "imbalance_below_singularity", "Singularity", "imbalance_below_bypass",
      "This process did not visit a call path only one process ran: its even share t / P of "
      "that process's time.",
      "See Single Participant: the one process's serial work keeps this one idle.")));
}

}  // namespace orrery::patterns

// The OpenMP metrics (docs/design.md §4). Their values are not found on the replay's
// event bus: the OpenMP analysis (analyzer/openmp_analysis.h) replays each
// team's barrier instances within the process and fills them; these classes
// carry the metric's metadata and its place in the metric table.

#include "all_patterns.h"

namespace orrery::patterns {
namespace {

/// A metric filled by the OpenMP analysis.
class OpenMpMetric final : public Pattern {
 public:
  explicit OpenMpMetric(MetricInfo info) : info_(std::move(info)) {}
  [[nodiscard]] MetricInfo info() const override { return info_; }

 private:
  MetricInfo info_;
};

}  // namespace

std::unique_ptr<Pattern> make_omp_barrier_wait() {
  return std::make_unique<OpenMpMetric>(MetricInfo{
      "omp_barrier_wait", "OpenMP Barrier Waiting", "sec", "omp",
      "Time a thread waited at an OpenMP barrier (explicit or implicit) for the last thread of "
      "its team: min(latest arrival, exit(self)) - arrival(self).",
      "The threads of a team had unequal work before the barrier: balance the loop schedule "
      "(schedule(dynamic) or guided), split the work differently, or use nowait where the "
      "barrier is not needed.",
      MetricKind::kWaitState});
}

std::unique_ptr<Pattern> make_omp_idle_threads() {
  return std::make_unique<OpenMpMetric>(MetricInfo{
      "omp_idle_threads", "OpenMP Idle Threads", "sec", "",
      "Time a process's OpenMP worker threads sat idle outside parallel regions while its "
      "master thread worked serially, at the master's call paths, on each worker thread.",
      "The serial parts of the program limit the threads' use: parallelize the call paths "
      "with the most idle time, or use fewer threads per process and more processes.",
      MetricKind::kCounter});
}

}  // namespace orrery::patterns

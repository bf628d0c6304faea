#include "orrery/analyzer/analysis.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <ostream>

#include "orrery/analyzer/call_tree.h"
#include "orrery/analyzer/communicators.h"
#include "orrery/analyzer/merge.h"
#include "orrery/analyzer/phases.h"
#include "orrery/analyzer/program_root.h"
#include "orrery/analyzer/summary.h"
#include "orrery/analyzer/trace_reader.h"
#include "orrery/patterns/registry.h"
#include "orrery/report/hdf5_io.h"

namespace orrery::analyzer {
namespace {

namespace fs = std::filesystem;

/// Progress lines on rank 0, with the time since the start.
class Progress {
 public:
  explicit Progress(std::ostream* out) : out_(out), start_(std::chrono::steady_clock::now()) {}
  void operator()(const std::string& line) const {
    if (out_ == nullptr) return;
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    char stamp[32];
    std::snprintf(stamp, sizeof stamp, "[%7.2f s] ", elapsed);
    *out_ << "orrery-analyze: " << stamp << line << std::endl;
  }

 private:
  std::ostream* out_;
  std::chrono::steady_clock::time_point start_;
};

std::string iso8601_now() {
  const std::time_t now = std::time(nullptr);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return buffer;
}

void write_report(const std::string& path, const report::Cube& cube) {
  report::CubeWriter writer(path, cube.header);
  for (std::size_t m = 0; m < cube.values.size(); ++m) writer.write_metric(m, cube.values[m]);
  writer.close();
}

ReplayStatistics sum_statistics(const ReplayStatistics& local, MPI_Comm world) {
  uint64_t counts[5] = {local.clock_violations, local.messages, local.collectives,
                        local.unclosed_regions, local.unmatched_requests};
  uint64_t sums[5] = {0, 0, 0, 0, 0};
  MPI_Reduce(counts, sums, 5, MPI_UINT64_T, MPI_SUM, 0, world);
  int64_t max_violation = 0;
  MPI_Reduce(&local.max_violation, &max_violation, 1, MPI_INT64_T, MPI_MAX, 0, world);
  return ReplayStatistics{sums[0], max_violation, sums[1], sums[2], sums[3], sums[4]};
}

}  // namespace

std::string default_report_path(const std::string& experiment) {
  fs::path dir(experiment);
  if (experiment.ends_with(".otf2")) dir = dir.parent_path();
  return (dir / "report.h5").string();
}

AnalysisResult analyze(const AnalysisOptions& options, MPI_Comm world) {
  int rank = 0, size = 0;
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &size);
  const Progress progress(rank == 0 && !options.quiet ? options.progress : nullptr);
  const PhaseRunner phases(world);
  AnalysisResult result;
  result.report_path = options.output.empty() ? default_report_path(options.experiment)
                                              : options.output;

  progress("reading definitions of " + options.experiment);
  Definitions definitions;
  phases.run([&] {
    definitions = read_definitions(options.experiment);
    if (definitions.ranks.size() != static_cast<std::size_t>(size)) {
      throw InputError("the trace has " + std::to_string(definitions.ranks.size()) +
                       " ranks but the analysis runs on " + std::to_string(size) +
                       "; run it as: mpirun -np " + std::to_string(definitions.ranks.size()) +
                       " orrery-analyze " + options.experiment);
    }
  });

  progress("reading traces");
  LocalTrace trace;
  phases.run([&] { read_rank_trace(options.experiment, definitions, static_cast<uint32_t>(rank), trace); });
  result.events = trace.events_read;
  result.events_kept = trace.events.size();
  uint64_t total_events = 0;
  MPI_Reduce(&result.events, &total_events, 1, MPI_UINT64_T, MPI_SUM, 0, world);
  progress("read " + std::to_string(total_events) + " events");

  // Regions for OTF2 measurement events (other producers' buffer flushes):
  // all ranks define them if any rank used them, so the ids agree.
  int any_measurement_regions = trace.measurement_regions_used ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &any_measurement_regions, 1, MPI_INT, MPI_LOR, world);
  if (any_measurement_regions != 0) add_measurement_regions(definitions);

  // One root per process: when any rank's events are not enclosed by one
  // region, all ranks define the same synthetic root (same run.json, so the
  // same name and id) and the ranks that need it get it.
  int any_needs_root = needs_root(trace) ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &any_needs_root, 1, MPI_INT, MPI_LOR, world);
  if (any_needs_root != 0) {
    enclose_in_root(trace, add_root_region(definitions, program_name(options.experiment)));
  }
  progress("building call trees");
  CallTree tree = build_call_tree(trace);
  Communicators comms(definitions, static_cast<uint32_t>(rank), world);
  MessageMatching matching;
  phases.run([&] {
    std::string error;
    matching = MessageMatching::build(trace, definitions, comms, world, error);
    if (!error.empty()) throw InputError(error);
  });

  progress("checked " + std::to_string(trace.sends.size()) + " sends of rank 0");
  patterns::PatternRegistry registry;
  patterns::SeverityMap severities(registry.size(), tree.size());
  EventBus bus;
  patterns::PatternContext context{bus, severities, definitions, tree, registry,
                                   1.0 / static_cast<double>(definitions.timer_resolution)};
  registry.attach_all(context);

  ReplayStatistics statistics;
  statistics.unclosed_regions = trace.unclosed_regions;
  statistics.unmatched_requests = trace.unmatched_requests;
  ReplayOptions replay_options;
  replay_options.correct_clock_violations = options.correct_clock_violations;
  progress("forward replay (messages, clock correction)");
  phases.run_or_abort("the forward replay", [&] {
    replay_forward(trace, matching, world, bus, replay_options, statistics);
  });
  progress("collective replay");
  phases.run_or_abort("the collective replay", [&] {
    replay_collectives(trace, definitions, comms, bus, statistics);
  });
  phases.run([&] {
    if (statistics.collective_mismatches > 0) {
      throw InputError("the traces disagree: rank " + std::to_string(rank) +
                       " saw a different number of collective operations than other members "
                       "of its communicators (a truncated or inconsistent trace)");
    }
  });
  progress("backward replay");
  phases.run_or_abort("the backward replay", [&] { replay_backward(trace, matching, world, bus); });
  registry.finish_all(context);
  result.statistics = sum_statistics(statistics, world);

  progress("merging call trees and severities");
  phases.run([&] { result.cube = merge_on_root(tree, severities, registry, definitions, world); });
  if (rank == 0) {
    result.cube.header.attributes = report::CubeAttributes{
        "orrery-analyze " ORRERY_VERSION, options.experiment, iso8601_now()};
  }
  if (options.write_report) {
    progress("writing " + result.report_path);
    phases.run([&] {
      if (rank == 0) write_report(result.report_path, result.cube);
    });
  }
  if (rank == 0 && options.progress != nullptr) {
    print_summary(*options.progress, result.cube, registry, result.statistics,
                  options.write_report ? result.report_path : std::string("(not written)"));
  }
  return result;
}

}  // namespace orrery::analyzer

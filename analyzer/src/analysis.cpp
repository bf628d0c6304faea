#include "orrery/analyzer/analysis.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <ostream>

#include "orrery/analyzer/balance_metrics.h"
#include "orrery/analyzer/call_tree.h"
#include "orrery/analyzer/clock_condition.h"
#include "orrery/analyzer/clock_report.h"
#include "orrery/analyzer/communicators.h"
#include "orrery/analyzer/incomplete.h"
#include "orrery/analyzer/merge.h"
#include "orrery/analyzer/neighbor_collectives.h"
#include "orrery/analyzer/openmp_analysis.h"
#include "orrery/analyzer/phases.h"
#include "orrery/analyzer/program_root.h"
#include "orrery/analyzer/summary.h"
#include "orrery/analyzer/summary_critical_path.h"
#include "orrery/analyzer/summary_findings.h"
#include "orrery/analyzer/what_if_phase.h"
#include "orrery/analyzer/trace_reader.h"
#include "orrery/patterns/registry.h"
#include "orrery/report/atomic_file.h"
#include "orrery/report/groups.h"
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

ReplayStatistics sum_statistics(const ReplayStatistics& local, MPI_Comm world) {
  uint64_t counts[9] = {local.clock_violations, local.messages,          local.collectives,
                        local.unclosed_regions, local.unmatched_requests, local.collectives_dropped,
                        local.sends_unmatched,  local.recvs_unmatched,    local.collectives_interrupted};
  uint64_t sums[9] = {};
  MPI_Reduce(counts, sums, 9, MPI_UINT64_T, MPI_SUM, 0, world);
  int64_t max_violation = 0;
  MPI_Reduce(&local.max_violation, &max_violation, 1, MPI_INT64_T, MPI_MAX, 0, world);
  ReplayStatistics sum{sums[0], max_violation, sums[1], sums[2], sums[3], sums[4]};
  sum.collectives_dropped = sums[5];
  sum.sends_unmatched = sums[6];
  sum.recvs_unmatched = sums[7];
  sum.collectives_interrupted = sums[8];
  return sum;
}

/// Every rank's `text`, on rank 0 (empty elsewhere).
std::vector<std::string> gather_on_root(const std::string& text, MPI_Comm world) {
  int rank = 0, size = 0;
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &size);
  int length = static_cast<int>(text.size());
  std::vector<int> lengths(static_cast<std::size_t>(size)), displs(lengths.size());
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, world);
  int total = 0;
  for (std::size_t r = 0; r < lengths.size(); ++r) {
    displs[r] = total;
    total += lengths[r];
  }
  std::string all(static_cast<std::size_t>(rank == 0 ? total : 0), '\0');
  MPI_Gatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), displs.data(), MPI_CHAR,
              0, world);
  std::vector<std::string> texts;
  if (rank != 0) return texts;
  for (std::size_t r = 0; r < lengths.size(); ++r) {
    texts.push_back(all.substr(static_cast<std::size_t>(displs[r]),
                               static_cast<std::size_t>(lengths[r])));
  }
  return texts;
}

/// The values of ranks without a trace are not zero but unknown: NaN.
void mark_absent(report::MetricValues& values, std::size_t locations,
                 const std::vector<uint32_t>& lost) {
  if (lost.empty() || locations == 0) return;
  for (std::size_t c = 0; c < values.size() / locations; ++c) {
    for (const uint32_t l : lost) {
      if (l < locations) values[c * locations + l] = std::numeric_limits<double>::quiet_NaN();
    }
  }
}

}  // namespace

std::string describe_endings(const std::vector<std::string>& endings) {
  // Reasons in order of their first rank; at most 8 ranks listed per reason.
  std::vector<std::pair<std::string, std::vector<std::size_t>>> groups;
  for (std::size_t r = 0; r < endings.size(); ++r) {
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const auto& group) { return group.first == endings[r]; });
    if (it == groups.end()) it = groups.insert(groups.end(), {endings[r], {}});
    it->second.push_back(r);
  }
  std::string text = "Incomplete run (no MPI_Finalize), analyzed up to each rank's end: ";
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const auto& [reason, ranks] = groups[g];
    text += (g == 0 ? "" : "; ") + reason + (ranks.size() == 1 ? ": rank " : ": ranks ");
    for (std::size_t k = 0; k < ranks.size() && k < 8; ++k) {
      text += (k == 0 ? "" : ", ") + std::to_string(ranks[k]);
    }
    if (ranks.size() > 8) text += " and " + std::to_string(ranks.size() - 8) + " more";
  }
  return text + ".";
}

std::string describe_lost_ranks(const std::vector<uint32_t>& lost) {
  std::string ranks;
  for (std::size_t k = 0; k < lost.size() && k < 8; ++k) {
    ranks += (k == 0 ? "" : ", ") + std::to_string(lost[k]);
  }
  if (lost.size() > 8) ranks += " and " + std::to_string(lost.size() - 8) + " more";
  return std::string("Warning: rank") + (lost.size() == 1 ? " " : "s ") + ranks +
         " left no trace: analyzed without " + (lost.size() == 1 ? "it" : "them") +
         " (messages to and from " + (lost.size() == 1 ? "it" : "them") +
         " are unmatched, the collectives of their communicators dropped); " +
         (lost.size() == 1 ? "its" : "their") + " values in the report are absent (NaN).";
}

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

  const auto wrong_size = [&](std::size_t ranks) {
    return InputError("the trace has " + std::to_string(ranks) +
                      " ranks but the analysis runs on " + std::to_string(size) +
                      "; run it as: mpirun -np " + std::to_string(ranks) + " orrery-analyze " +
                      options.experiment);
  };
  // The grouping file, checked before the long phases.
  std::vector<report::GroupRule> group_rules;
  phases.run([&] {
    if (rank == 0 && !options.groups_file.empty()) {
      group_rules = report::read_group_rules(options.groups_file);
    }
  });
  // A run that never reached MPI_Finalize left one archive per rank with
  // that rank's own definitions (incomplete.h): unified here, and the
  // truncation it causes is tolerated (and counted) below.
  const bool incomplete = is_incomplete_experiment(options.experiment);
  result.incomplete = incomplete;
  const std::string source = incomplete
                                 ? incomplete_archive(options.experiment, static_cast<uint32_t>(rank))
                                 : options.experiment;
  Definitions definitions;
  IdMapping mapping;
  // Ranks of an incomplete run that left no trace (killed by SIGKILL): the
  // others are analyzed; theirs is an empty trace, their values NaN.
  std::vector<uint32_t> lost;
  bool traceless = false;
  if (incomplete) {
    progress("incomplete run (no MPI_Finalize): reading each rank's own trace in " +
             options.experiment + "/incomplete");
    phases.run([&] {
      if (rank != 0) return;
      const uint32_t ranks = incomplete_world_size(options.experiment);
      if (ranks != static_cast<uint32_t>(size)) throw wrong_size(ranks);
    });
    lost = ranks_without_trace(options.experiment, static_cast<uint32_t>(size));
    traceless = std::find(lost.begin(), lost.end(), static_cast<uint32_t>(rank)) != lost.end();
    Definitions local;
    phases.run([&] {
      if (traceless) {
        local.ranks.resize(static_cast<std::size_t>(size));
        local.ranks[static_cast<std::size_t>(rank)] =
            RankDef{static_cast<uint64_t>(rank), "rank " + std::to_string(rank) + " (no trace)", ""};
        return;
      }
      local = read_definitions(source);
      if (local.ranks.size() != static_cast<std::size_t>(size)) throw wrong_size(local.ranks.size());
    });
    definitions = unify_definitions(local, world, mapping);
    progress("unified " + std::to_string(definitions.regions.size()) + " regions and " +
             std::to_string(definitions.comms.size()) + " communicators of " +
             std::to_string(size) + " ranks");
    // How each rank ended, for the summary.
    result.rank_endings = gather_on_root(
        incomplete_reason(options.experiment, static_cast<uint32_t>(rank)), world);
    if (rank == 0) progress(describe_endings(result.rank_endings));
  } else {
    progress("reading definitions of " + options.experiment);
    phases.run([&] {
      definitions = read_definitions(options.experiment);
      if (definitions.ranks.size() != static_cast<std::size_t>(size)) {
        throw wrong_size(definitions.ranks.size());
      }
    });
  }

  // In-neighbours of this rank in topology communicators (neighbourhood collectives).
  phases.run([&] {
    read_in_neighbors(options.experiment, static_cast<uint32_t>(rank), incomplete ? &mapping : nullptr,
                      definitions);
  });
  progress("reading traces");
  LocalTrace trace;
  phases.run([&] {
    if (traceless) {
      trace.rank = static_cast<uint32_t>(rank);
      return;
    }
    read_rank_trace(source, definitions, static_cast<uint32_t>(rank), trace,
                    incomplete ? &mapping : nullptr);
  });
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
    enclose_in_root(trace, add_root_region(definitions, agreed_program_name(options.experiment,
                                                                            trace, world)));
  }
  progress("building call trees");
  CallTree tree = build_call_tree(trace);
  Communicators comms(definitions, static_cast<uint32_t>(rank), world);
  MessageMatching matching;
  phases.run([&] {
    std::string error;
    matching = MessageMatching::build(trace, definitions, comms, world, error, incomplete);
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
  if (incomplete) {
    statistics.sends_unmatched = matching.unmatched_sends();
    statistics.recvs_unmatched = matching.unmatched_recvs();
    for (const CollectiveOp& op : trace.collectives) {
      if (!op.nonblocking && op.complete_call == kNone) ++statistics.collectives_interrupted;
    }
  }
  // The clock condition, in its own phase (clock_condition.h); the forward
  // replay then sees the corrected times and corrects nothing itself.
  ClockConditionParameters clock_parameters;
  clock_parameters.correct = options.correct_clock_violations;
  clock_parameters.min_latency =
      std::max<int64_t>(1, static_cast<int64_t>(definitions.timer_resolution / 1000000));
  ClockCorrection clock_correction;
  progress(options.correct_clock_violations ? "clock condition (correcting violations)"
                                            : "clock condition (counting violations)");
  phases.run_or_abort("the clock correction", [&] {
    clock_correction = correct_clock_condition(trace, matching, world, clock_parameters);
  });
  statistics.clock_violations = clock_correction.corrected;
  statistics.max_violation = clock_correction.max_jump;
  run_network_models(options, {trace, tree, definitions, comms, matching, world},
                     incomplete || !lost.empty(), phases, progress, result);
  ReplayOptions replay_options;
  replay_options.correct_clock_violations = false;
  progress("forward replay (messages)");
  phases.run_or_abort("the forward replay", [&] {
    replay_forward(trace, matching, world, bus, replay_options, statistics);
  });
  progress("collective replay");
  phases.run_or_abort("the collective replay", [&] {
    replay_collectives(trace, definitions, comms, bus, statistics, incomplete);
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
  if (options.delay_analysis) {
    progress("delay analysis (root causes of wait states)");
    phases.run_or_abort("the delay analysis", [&] {
      result.delay = replay_delay(trace, tree, definitions, comms, matching, world, bus);
    });
    progress("delay analysis: " + std::to_string(result.delay.rounds) + " propagation rounds");
  }
  if (options.critical_path) {
    progress("critical path");
    phases.run_or_abort("the critical-path analysis", [&] {
      result.critical_path = replay_critical_path(trace, tree, definitions, comms, matching, world, bus);
    });
    if (result.critical_path.last_rank != kNone) {
      progress("critical path: ends on rank " + std::to_string(result.critical_path.last_rank) +
               ", " + std::to_string(result.critical_path.hops) + " moves between processes (" +
               std::to_string(result.critical_path.looked_ahead) + " skipped by the look-ahead)" +
               (result.critical_path.complete ? "" : " (cut short: inconsistent times)"));
    }
  }

  // The process's other threads (OpenMP), within the process; not for the
  // rank-local archives of an incomplete run.
  ThreadSeverities threads;
  phases.run([&] {
    if (incomplete || traceless) return;
    threads = analyze_openmp(options.experiment, definitions, static_cast<uint32_t>(rank), tree, registry,
                             severities, 1.0 / static_cast<double>(definitions.timer_resolution));
  });
  registry.finish_all(context);
  result.statistics = sum_statistics(statistics, world);

  progress("merging call trees and severities");
  std::optional<CubeMerge> merge;
  phases.run([&] { merge.emplace(tree, registry, definitions, world); });
  report::CubeHeader header;
  if (rank == 0) {
    header = merge->header();
    for (const uint32_t l : lost) {
      if (l < header.locations.size()) header.locations[l].name += " (no trace)";
    }
    header.attributes = report::CubeAttributes{"orrery-analyze " ORRERY_VERSION,
                                               options.experiment, iso8601_now()};
  }
  if (options.write_report) progress("writing " + result.report_path);
  // One metric at a time: rank 0 writes each as it arrives, so it never
  // holds more than one metric of the cube (unless asked to keep it). A
  // write failure is kept until every metric went by (the other ranks are in
  // the gathers) and then agreed on.
  // Written under a temporary name and renamed when complete: a failed or
  // interrupted write (a full disk) never leaves a half report under its name.
  std::optional<report::AtomicFile> output;
  std::unique_ptr<report::CubeWriter> writer;
  std::exception_ptr write_failure;
  const auto attempt = [&](const std::function<void()>& step) {
    if (write_failure) return;
    try {
      try {
        step();
      } catch (const InputError& failure) {
        if (output) output->fail(failure.what());  // names the report, and a full disk
        throw;
      }
    } catch (...) {
      write_failure = std::current_exception();
    }
  };
  if (rank == 0 && options.write_report) {
    attempt([&] {
      output.emplace(result.report_path);
      writer = std::make_unique<report::CubeWriter>(output->temporary(), header);
    });
  }
  SummaryDigest digest(header);
  std::optional<BalanceMetrics> balance;
  if (rank == 0) balance.emplace(header, registry);
  if (rank == 0 && options.keep_cube) result.cube.header = header;
  for (std::size_t m = 0; m < severities.metrics(); ++m) {
    report::MetricValues values = merge->gather_metric(m, severities, &threads.slots);
    if (rank != 0) continue;
    mark_absent(values, header.locations.size(), lost);
    balance->take(m, values);
    digest.add(m, values);
    if (writer) attempt([&] { writer->write_metric(m, values); });
    if (options.keep_cube) result.cube.values.push_back(std::move(values));
  }
  if (writer) attempt([&] { writer->close(); });
  const std::vector<ClockCorrection> corrections = gather_clock_corrections(clock_correction, world);
  if (rank == 0) {
    result.clock = clock_record(describe_clock(options.experiment), corrections,
                                1.0 / static_cast<double>(definitions.timer_resolution));
    if (writer) attempt([&] { report::write_clock_record(output->temporary(), result.clock); });
    result.groups = balance->groups(group_rules);
    if (writer) attempt([&] { report::write_function_groups(output->temporary(), result.groups); });
  }
  if (rank == 0) {
    result.efficiencies = run_efficiencies(header, digest.by_location(), result);
    if (writer) {
      attempt([&] {
        report::write_efficiency_record(output->temporary(), result.efficiencies,
                                        prediction_of(options, result));
      });
    }
  }
  if (writer) attempt([&] { output->commit(); });
  writer.reset();
  output.reset();  // removes the temporary file unless it was committed
  phases.run([&] {
    if (write_failure) std::rethrow_exception(write_failure);
  });
  if (rank == 0 && options.progress != nullptr) {
    if (incomplete) *options.progress << "\n" << describe_endings(result.rank_endings) << "\n";
    if (!lost.empty()) *options.progress << describe_lost_ranks(lost) << "\n";
    *options.progress << "\n";
    print_clock_summary(*options.progress, result.clock, options.correct_clock_violations);
    print_summary(*options.progress, header, digest, registry, result.statistics,
                  options.write_report ? result.report_path : std::string("(not written)"));
    print_efficiencies(*options.progress, options, result);
    print_findings(*options.progress, options.write_report ? result.report_path : std::string(),
                   result.delay, options.delay_analysis);
    if (options.critical_path) {
      print_critical_path(*options.progress, header, result.critical_path,
                          1.0 / static_cast<double>(definitions.timer_resolution),
                          balance->path_entries(3));
    }
  }
  return result;
}

}  // namespace orrery::analyzer

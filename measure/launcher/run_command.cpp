// `orrery run`: create the experiment, start the launch line with the
// measurement preloaded, record how it ended. The launcher never links the
// measurement library; it only names it in LD_PRELOAD.

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "orrery/launcher/commands.h"
#include "binary_check.h"
#include "openmp_launch.h"
#include "child_process.h"
#include "experiment.h"
#include "launch_line.h"
#include "next_step.h"
#include "orrery/error.h"
#include "run_options.h"

namespace orrery::measure {
namespace {

namespace fs = std::filesystem;

constexpr const char* kLibraryName = "liborrery-measure.so";

/// <dir of this executable>/../lib/liborrery-measure.so, or ORRERY_MEASURE_LIBRARY.
std::string find_measure_library() {
  if (const char* override_path = std::getenv("ORRERY_MEASURE_LIBRARY");
      override_path && *override_path) {
    if (access(override_path, R_OK) != 0) {
      throw InputError(std::string("measurement library not found: ORRERY_MEASURE_LIBRARY=") +
                       override_path);
    }
    return fs::absolute(override_path).string();
  }
  std::error_code error;
  const fs::path self = fs::read_symlink("/proc/self/exe", error);
  const fs::path candidate = (self.parent_path() / ".." / "lib" / kLibraryName).lexically_normal();
  if (error || access(candidate.c_str(), R_OK) != 0) {
    throw InputError("measurement library not found: " + candidate.string() +
                     " (build the orrery-measure target, or set ORRERY_MEASURE_LIBRARY)");
  }
  return candidate.string();
}

void print_abort(const nlohmann::json& aborted, const std::string& dir) {
  const auto field = [&](const char* key) {
    return aborted.is_object() && aborted.contains(key) ? aborted.at(key) : nlohmann::json("?");
  };
  const auto rank = field("rank");
  const auto code = field("error_code");
  std::fprintf(stderr,
               "orrery run: the application called MPI_Abort (rank %s, error code %s); "
               "the experiment %s is incomplete\n",
               rank.dump().c_str(), code.dump().c_str(), dir.c_str());
}

/// One line on what was measured, and a warning if the library lost events.
/// A profile records no events: its line counts call paths and visits.
void print_statistics(const nlohmann::json& measurement, const std::string& mode) {
  const nlohmann::json* total = nullptr;
  if (measurement.is_object() && measurement.contains("statistics") &&
      measurement["statistics"].is_object() && measurement["statistics"].contains("total")) {
    total = &measurement["statistics"]["total"];
  }
  if (total == nullptr || !total->is_object()) return;
  const auto number = [&](const char* key) {
    const auto it = total->find(key);
    return it != total->end() && it->is_number() ? it->get<double>() : 0.0;
  };
  if (mode == "profile") {
    std::fprintf(stderr,
                 "orrery run: profiled %.0f call paths (summed over ranks), %.0f visits, %.0f messages, "
                 "%.0f collective calls\n",
                 number("call_paths"), number("visits"), number("messages"), number("collectives"));
    return;
  }
  std::fprintf(stderr, "orrery run: %.0f events, %.0f bytes of trace, %.0f buffer flushes\n",
               number("events"), number("bytes"), number("flushes"));
  if (number("lost_events") > 0) {
    std::fprintf(stderr, "orrery run: warning: the measurement lost %.0f events\n",
                 number("lost_events"));
  }
}

/// Points at the rank-local traces of ranks that never reached MPI_Finalize.
void print_incomplete(const RunOutcome& outcome, const std::string& dir) {
  if (outcome.incomplete_ranks == 0) return;
  std::fprintf(stderr,
               "orrery run: %d rank(s) left rank-local traces in %s/incomplete/ "
               "(mpirun -np N orrery-analyze %s analyzes them; otf2-print reads them)\n",
               outcome.incomplete_ranks, dir.c_str(), dir.c_str());
}

/// Whether the file system of `dir` has (next to) no room left: then a missing
/// measurement is the disk's fault, not the program's.
bool disk_is_full(const std::string& dir) {
  std::error_code error;
  const auto space = fs::space(dir, error);
  return !error && space.available < (std::uintmax_t{1} << 20);
}

/// Tells the user how the run ended and returns the launcher's exit status.
int report_outcome(const RunOptions& options, const LaunchLine& line, const std::string& dir,
                   const ChildExit& child, const RunOutcome& outcome, const nlohmann::json& record) {
  if (outcome.aborted) {
    print_abort(record["aborted"], dir);
    return child.exit_status != 0 ? child.exit_status : kExitBadInput;
  }
  if (child.interrupted_by != 0 && !outcome.complete) {
    std::fprintf(stderr, "orrery run: interrupted by signal %d; the experiment %s is incomplete\n",
                 child.interrupted_by, dir.c_str());
    print_incomplete(outcome, dir);
    return child.exit_status != 0 ? child.exit_status : 128 + child.interrupted_by;
  }
  if (!outcome.measured && outcome.incomplete_ranks > 0) {
    if (outcome.ranks_without_trace.empty()) {
      std::fprintf(stderr, "orrery run: the run ended before MPI_Finalize (%s)\n",
                   outcome.incomplete_reason.c_str());
    } else {
      // The rank that died first names the cause; the others were ended after it.
      std::string lost;
      for (const int rank : outcome.ranks_without_trace) {
        lost += (lost.empty() ? "" : ", ") + std::to_string(rank);
      }
      const std::string cause = outcome.rank_signal != 0
                                    ? "killed by " + signal_name(outcome.rank_signal)
                                    : "killed by a signal that cannot be caught (SIGKILL?)";
      std::fprintf(stderr,
                   "orrery run: the run ended before MPI_Finalize: rank%s %s %s and left no "
                   "trace; the other ranks were ended after it (%s)\n",
                   outcome.ranks_without_trace.size() == 1 ? "" : "s", lost.c_str(), cause.c_str(),
                   outcome.incomplete_reason.c_str());
    }
    if (options.mode == "profile") {
      // The ranks' profiles were written on their way out: a report of those ranks.
      std::fprintf(stderr, "orrery run: %d rank(s) left profiles in %s/profile; the report covers only them\n",
                   outcome.incomplete_ranks, dir.c_str());
      const auto ranks = record.value("ranks", nlohmann::json(line.ranks ? *line.ranks : 0));
      finish_experiment(options.mode, dir, ranks.dump(), false);
    } else {
      print_incomplete(outcome, dir);
    }
    return child.exit_status != 0 ? child.exit_status : kExitBadInput;
  }
  const bool trace_expected = options.mode == "trace";
  if (!outcome.measured && disk_is_full(dir)) {
    std::fprintf(stderr,
                 "orrery run: the disk holding %s is full: the measurement could not be written; "
                 "the experiment is incomplete\n",
                 dir.c_str());
    return child.exit_status;
  }
  if (!outcome.measured || (trace_expected && !outcome.traced)) {
    std::string hint = explain_untraceable_program(line.program);
    if (hint.empty()) {
      hint = child.exit_status != 0
                 ? "the launch failed (exit status " + std::to_string(child.exit_status) +
                       ") before the ranks reached MPI_Finalize"
                 : "is it a dynamically linked MPI program that calls MPI_Finalize?";
    }
    std::fprintf(stderr, "orrery run: warning: the run produced no %s in %s: %s\n",
                 trace_expected ? "trace" : "measurement", dir.c_str(), hint.c_str());
    return child.exit_status != 0 ? child.exit_status : kExitBadInput;
  }
  if (outcome.write_errors > 0) {
    std::fprintf(stderr,
                 "orrery run: the trace of %d rank(s) could not be written completely (is the disk "
                 "full?); the experiment %s is incomplete\n",
                 outcome.write_errors, dir.c_str());
    return child.exit_status;
  }
  if (child.signal != 0) {
    std::fprintf(stderr, "orrery run: the application was killed by signal %d\n", child.signal);
  } else if (child.exit_status != 0) {
    std::fprintf(stderr, "orrery run: the application exited with status %d\n", child.exit_status);
  }
  print_statistics(record["measurement"], options.mode);
  const auto ranks = record.value("ranks", nlohmann::json(line.ranks ? *line.ranks : 0));
  if (!finish_experiment(options.mode, dir, ranks.dump(), outcome.complete)) {
    return child.exit_status != 0 ? child.exit_status : kExitBadInput;
  }
  return child.exit_status;
}

}  // namespace

int run_command(int argc, char** argv) {
  try {
    ParsedRunOptions parsed = parse_run_options(argc, argv);
    if (!parsed.options) return parsed.exit_status;
    RunOptions& options = *parsed.options;
    const std::string library = find_measure_library();
    const LaunchLine line = analyze_launch_line(options.launch);
    if (options.experiment_dir.empty()) options.experiment_dir = default_experiment_name(line);
    const std::string dir = create_experiment_dir(options.experiment_dir);

    EnvironmentOverrides variables = measurement_environment(options, dir);
    const OpenMpPlan openmp = plan_openmp(line.program, options.no_openmp);
    if (!openmp.note.empty()) std::fprintf(stderr, "orrery run: note: %s\n", openmp.note.c_str());
    variables.emplace_back("LD_PRELOAD", openmp.preload.empty() ? library : openmp.preload + ":" + library);
    std::vector<std::string> names;
    for (const auto& variable : variables) names.push_back(variable.first);
    const std::vector<std::string> executed = with_forwarded_variables(options.launch, line, names);

    nlohmann::json record = initial_run_record(options, executed, dir);
    record["openmp"] = openmp.record();
    write_run_record(dir, record);
    std::fflush(nullptr);
    const ChildExit child = run_child(executed, variables);
    if (!child.started) {
      // Nothing ran: leave no experiment behind that would block the next try.
      std::error_code ignored;
      fs::remove_all(dir, ignored);
      std::fprintf(stderr, "orrery run: %s\n", child.error.c_str());
      return child.exit_status;
    }
    const RunOutcome outcome = complete_run_record(record, dir, child);
    // The runtime that started the measurement's OMPT tool, as it named itself.
    if (record["openmp"].is_object() && record["measurement"].is_object() &&
        record["measurement"].value("openmp", nlohmann::json(nullptr)).is_object()) {
      record["openmp"]["runtime_version"] = record["measurement"]["openmp"].value("runtime", std::string());
    }
    try {
      write_run_record(dir, record);
    } catch (const Error& error) {
      // The application ran; its exit status is the user's, whatever the disk did.
      std::fprintf(stderr, "orrery run: %s; the experiment %s is incomplete\n", error.what(),
                   dir.c_str());
      return child.exit_status;
    }
    return report_outcome(options, line, dir, child, outcome, record);
  } catch (const Error& error) {
    std::fprintf(stderr, "orrery run: %s\n", error.what());
    return error.exit_status();
  } catch (const std::exception& error) {
    std::fprintf(stderr, "orrery run: %s\n", error.what());
    return kExitBadInput;
  }
}

}  // namespace orrery::measure

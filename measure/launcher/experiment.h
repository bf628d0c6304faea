#pragma once
// The experiment directory and its run.json as the launcher writes it (the
// launcher/library contract): first with "complete": false before the run,
// then rewritten after it with the outcome and the library's measurement.json.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "child_process.h"
#include "run_options.h"

namespace orrery::measure {

/// Creates the experiment directory (and missing parents) and returns its
/// absolute path; throws InputError if it exists or cannot be created.
std::string create_experiment_dir(const std::string& path);

/// The record written before the launch.
nlohmann::json initial_run_record(const RunOptions& options, const std::vector<std::string>& executed,
                                  const std::string& experiment_dir);

/// What the experiment holds after the run.
struct RunOutcome {
  bool measured = false;  ///< the library wrote measurement.json (reached MPI_Finalize)
  bool traced = false;    ///< an OTF2 anchor file traces.otf2 exists
  bool aborted = false;   ///< the library recorded an MPI_Abort
  int incomplete_ranks = 0;  ///< ranks that ended without MPI_Finalize (rank-local traces)
  std::string incomplete_reason;  ///< the first such rank's reason (exit, SIGTERM, ...)
  /// Ranks of an incomplete run that left nothing at all (killed by a signal
  /// that cannot be caught, such as SIGKILL from the out-of-memory killer).
  std::vector<int> ranks_without_trace;
  /// The signal mpirun reports a rank died of (exit status 128 + signal), 0 if none.
  int rank_signal = 0;
  int write_errors = 0;   ///< ranks whose trace could not be written (disk full?)
  bool complete = false;  ///< measured, every trace written, and the application exited with 0
};

/// "SIGKILL" for 9 (the abbreviation with the SIG prefix).
std::string signal_name(int signal_number);

/// Adds end time, exit status, hosts, the measurement and any abort record.
RunOutcome complete_run_record(nlohmann::json& record, const std::string& experiment_dir,
                               const ChildExit& child);

/// Writes `record` as EXP/run.json through a temporary file and a rename, so
/// readers never see half a file; throws InputError on failure.
void write_run_record(const std::string& experiment_dir, const nlohmann::json& record);

}  // namespace orrery::measure

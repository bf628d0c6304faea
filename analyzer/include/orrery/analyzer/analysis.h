#pragma once
// The analysis pipeline, assembled in one place (STYLE §7): read
// definitions, read this rank's trace, correct clocks, build the call tree,
// replay (forward, collectives, backward) with the patterns attached, merge
// on rank 0, write the report, print the summary.

#include <mpi.h>

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "orrery/analyzer/replay.h"
#include "orrery/analyzer/replay_critical_path.h"
#include "orrery/analyzer/replay_delay.h"
#include "orrery/analyzer/what_if.h"
#include "orrery/report/clock_record.h"
#include "orrery/report/cube.h"
#include "orrery/report/groups.h"
#include "orrery/report/efficiency.h"

namespace orrery::analyzer {

/// What orrery-analyze was asked to do.
struct AnalysisOptions {
  std::string experiment;          ///< experiment directory (or the .otf2 anchor)
  std::string output;              ///< report path; empty: EXP/report.h5
  bool correct_clock_violations = true;
  bool write_report = true;
  /// Keep the whole cube in the result on rank 0 (tests, library use). The
  /// command line does not: it streams the cube to the file metric by metric.
  bool keep_cube = true;
  std::ostream* progress = nullptr;  ///< rank 0's progress and summary, or none
  bool quiet = false;                ///< summary only, no progress lines
  /// The delay analysis (root causes, wait-state classes; replay_delay.h).
  bool delay_analysis = true;
  /// The critical path (replay_critical_path.h).
  bool critical_path = true;
  /// A grouping file for the function groups (report/groups.h); empty: the built-in grouping.
  std::string groups_file;
  /// Re-time the trace on this machine model first and analyze the predicted
  /// run (what_if.h; `--what-if`).
  std::optional<MachineModel> what_if;
  /// The ideal-network replay behind the serialisation and transfer efficiencies.
  bool ideal_replay = true;
  /// With fewer processes than traced ranks, return at once with
  /// AnalysisResult::traced_ranks set (the caller then runs analyze_in_blocks)
  /// instead of failing.
  bool fewer_processes_allowed = false;
  /// Chunk memory of the trace's tables per traced rank, in bytes; beyond it
  /// the chunks live in a scratch file next to the report (chunk_memory.h).
  /// 0: no limit.
  uint64_t memory_limit = 0;
};

/// What came out: the cube (on rank 0 only, if kept) and what the replay saw.
struct AnalysisResult {
  report::Cube cube;
  ReplayStatistics statistics;  ///< summed over ranks (on rank 0)
  /// The clock and, per rank, the clock-condition corrections (on rank 0;
  /// also in report.h5, report/clock_record.h).
  report::ClockRecord clock;
  uint64_t events = 0;          ///< events of this rank
  uint64_t events_kept = 0;     ///< of which kept for the replays (the rest folded)
  std::string report_path;
  /// The delay analysis on this rank (rounds agree over ranks).
  DelayStatistics delay;
  /// The critical path (the same on every rank).
  CriticalPathStatistics critical_path;
  /// The function groups of the load-imbalance analysis (rank 0; also in report.h5).
  report::FunctionGroups groups;
  bool incomplete = false;  ///< an incomplete experiment (no MPI_Finalize; incomplete.h)
  /// Incomplete experiments, on rank 0: how each rank ended (rank-<r>.json reason).
  std::vector<std::string> rank_endings;
  /// The POP efficiencies of the (predicted) run, on rank 0.
  std::vector<report::Efficiency> efficiencies;
  /// The ideal-network replay (if done) and the what-if replay (if asked).
  std::optional<WhatIfTiming> ideal;
  std::optional<WhatIfTiming> predicted;
  /// Set (with nothing else) when the trace has more ranks than the analysis
  /// has processes and AnalysisOptions::fewer_processes_allowed.
  uint32_t traced_ranks = 0;
  /// Under AnalysisOptions::memory_limit: bytes of this rank's tables kept
  /// in its scratch file, and on rank 0 the sum and the number of such ranks.
  uint64_t scratch_bytes = 0;
  uint64_t scratch_bytes_all = 0;
  uint32_t scratch_ranks = 0;
};

/// "Incomplete run (no MPI_Finalize): SIGTERM: ranks 1, 2; exit without
/// MPI_Finalize: rank 0." for the reasons of each rank.
[[nodiscard]] std::string describe_endings(const std::vector<std::string>& endings);

/// The summary's warning about ranks that left no trace (killed by SIGKILL).
[[nodiscard]] std::string describe_lost_ranks(const std::vector<uint32_t>& lost);

/// The default report path of an experiment.
[[nodiscard]] std::string default_report_path(const std::string& experiment);

/// Runs the whole analysis; collective over `world`. Throws orrery::Error on
/// every rank if any rank fails.
AnalysisResult analyze(const AnalysisOptions& options, MPI_Comm world);

/// The analysis of `traced_ranks` ranks on fewer processes (MPI_COMM_WORLD):
/// each process replays a contiguous block of traced ranks, one thread each,
/// with the same results as one process per rank. Returns this process's exit
/// status; errors are printed by the process of traced rank 0.
int analyze_in_blocks(const AnalysisOptions& options, uint32_t traced_ranks);

}  // namespace orrery::analyzer

#pragma once
// One run of the analysis pipeline (analysis.h's analyze()), as named steps
// over the state they share. Every step is collective over the world
// communicator and runs on every rank, in the order run() lists them.

#include <mpi.h>

#include <chrono>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "orrery/analyzer/analysis.h"
#include "orrery/analyzer/balance_metrics.h"
#include "orrery/trace/call_tree.h"
#include "orrery/trace/chunk_memory.h"
#include "orrery/analyzer/clock_condition.h"
#include "orrery/analyzer/communicators.h"
#include "orrery/analyzer/incomplete.h"
#include "orrery/analyzer/message_exchange.h"
#include "orrery/analyzer/openmp_analysis.h"
#include "orrery/analyzer/phases.h"
#include "orrery/analyzer/summary.h"
#include "orrery/analyzer/thread_collectives.h"
#include "orrery/analyzer/thread_messages.h"
#include "orrery/trace/trace.h"
#include "orrery/patterns/registry.h"
#include "orrery/report/groups.h"
#include "delay_wait_state.h"

namespace orrery::analyzer {

class CubeMerge;
struct LocalValues;
class ReportOutput;  // analysis_output.cpp

/// Progress lines on rank 0, with the time since the start.
class Progress {
 public:
  explicit Progress(std::ostream* out) : out_(out), start_(std::chrono::steady_clock::now()) {}
  void operator()(const std::string& line) const;

 private:
  std::ostream* out_;
  std::chrono::steady_clock::time_point start_;
};

class AnalysisRun {
 public:
  AnalysisRun(const AnalysisOptions& options, MPI_Comm world);
  AnalysisResult run();

 private:
  // Input (analysis_input.cpp).
  void read_grouping_file();
  void read_definitions_of_run();
  void read_unified_definitions();  ///< an incomplete run: each rank's own archive
  void read_trace();
  void complete_definitions();      ///< measurement regions, one program root per process
  void prepare_replay();            ///< call tree, communicators, message matching, patterns
  void match_thread_messages();     ///< the other threads' messages and collectives (thread_*.h)
  void correct_clocks();
  // Replays (analysis_replays.cpp).
  void replay_wait_states();
  void find_root_causes();
  void follow_critical_path();
  void analyze_threads();
  // Output (analysis_output.cpp).
  void merge_and_write();
  void print_closing_summary();

  [[nodiscard]] InputError wrong_size(std::size_t ranks) const;
  /// True (and result_.traced_ranks set) if the trace has more ranks than
  /// processes and the caller hosts blocks of ranks (analyze_in_blocks).
  bool hosts_fewer(std::size_t ranks);
  [[nodiscard]] double seconds_per_tick() const;

  void count_scratch_memory();
  [[nodiscard]] std::string scratch_directory() const;

  const AnalysisOptions& options_;
  MPI_Comm world_;
  int rank_ = 0;
  int size_ = 0;
  Progress progress_;
  PhaseRunner phases_;
  AnalysisResult result_;

  std::vector<report::GroupRule> group_rules_;
  bool incomplete_ = false;
  std::string source_;               ///< the archive this rank reads
  Definitions definitions_;
  IdMapping mapping_;                ///< local -> unified ids (incomplete runs)
  std::vector<uint32_t> lost_;       ///< ranks that left no trace
  bool traceless_ = false;           ///< this rank is one of them
  /// MPI calls on threads not traced (thread_messages.h): messages tolerated unmatched.
  uint64_t untraced_thread_calls_ = 0;
  LocalTrace trace_;
  CallTree tree_;
  std::unique_ptr<Communicators> comms_;
  MessageMatching matching_;
  ThreadMessages thread_messages_;
  ThreadCollectives thread_collectives_;
  patterns::PatternRegistry registry_;
  std::unique_ptr<patterns::SeverityMap> severities_;
  EventBus bus_;
  std::unique_ptr<patterns::PatternContext> context_;
  ReplayStatistics statistics_;
  ClockCorrection clock_correction_;
  MessageTimes message_times_;  ///< the clock condition's, for the forward replay
  /// The forward replay's point-to-point wait states, for the delay analysis.
  delay::HandedWaitStates handed_waits_;
  ThreadSeverities threads_;
  std::unique_ptr<ChunkBudget> chunk_budget_;  ///< under --memory-limit

  report::CubeHeader header_;        ///< the merged cube's (rank 0)
  std::unique_ptr<SummaryDigest> digest_;
  std::optional<BalanceMetrics> balance_;  ///< ordinary cubes
  /// The call paths with the most critical-path time (rank 0, the closing summary).
  std::vector<BalanceMetrics::PathEntry> critical_entries_;

  /// Rank 0's part of merge_and_write (analysis_output.cpp): every metric
  /// whole (ordinary cubes) or block by block (large ones).
  void write_ordinary_cube(const CubeMerge& merge, const LocalValues& mine, ReportOutput* output);
  void write_large_cube(const CubeMerge& merge, const LocalValues& mine, ReportOutput* output);
};

}  // namespace orrery::analyzer

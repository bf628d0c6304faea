// orrery-analyze: mpirun -np N orrery-analyze EXP [-o OUT.h5] [--what-if MODEL]
// One analysis rank per traced rank, or fewer (each replays a block of traced
// ranks). Exit status 0 ok, 1 bad input, 2 bad usage.

#include <mpi.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>

#include "orrery/allocation_limit.h"
#include "orrery/analyzer/analysis.h"
#include "orrery/error.h"

namespace {

/// Parses the command line; returns -1 to go on, else the exit status.
int parse(int argc, char** argv, int rank, orrery::analyzer::AnalysisOptions& options) {
  CLI::App app{
      "Replays an Orrery (or other OTF2 MPI) trace in parallel, finds wait states and writes "
      "EXP/report.h5.\nRun with one rank per traced rank: mpirun -np N orrery-analyze EXP\n"
      "(or fewer, -np M < N: each process replays a block of traced ranks)",
      "orrery-analyze"};
  bool no_correction = false;
  bool quiet = false;
  app.add_option("experiment", options.experiment, "experiment directory written by orrery run")
      ->required();
  app.add_option("-o,--output", options.output, "report file (default: EXP/report.h5)");
  app.add_flag("--no-clock-correction", no_correction,
               "do not correct clock-condition violations (they are still counted)");
  app.add_flag("-q,--quiet", quiet, "no progress lines, only the summary and errors");
  bool no_delay = false;
  app.add_flag("--no-delay-analysis", no_delay,
               "skip the delay analysis (root causes of wait states, wait-state classes)");
  bool no_critical_path = false;
  app.add_flag("--no-critical-path", no_critical_path,
               "skip the critical-path analysis (critical_path, critical_path_imbalance, "
               "performance_impact stay 0)");
  app.add_option("--groups", options.groups_file,
                 "grouping file for the function groups of the load-imbalance analysis "
                 "(lines 'TOP / SECOND = GLOB'; docs/analyzer.md)");
  bool no_ideal = false;
  app.add_flag("--no-ideal-replay", no_ideal,
               "skip the ideal-network replay (the serialisation and transfer efficiencies)");
  std::string what_if;
  uint64_t eager_limit = orrery::analyzer::MachineModel{}.eager_limit;
  app.add_option("--what-if", what_if,
                 "replay on a modelled machine and write the predicted run: 'ideal' or "
                 "'latency=L,bandwidth=B[,compute=F]' (e.g. latency=5us,bandwidth=1GB/s)");
  std::string memory_limit;
  app.add_option("--memory-limit", memory_limit,
                 "memory for each traced rank's event tables (e.g. 512M, 2G); beyond it they "
                 "live in a scratch file next to the report and stream through the page cache "
                 "(default: half the node's memory divided by the traced ranks on it)");
  app.add_option("--eager-limit", eager_limit,
                 "with --what-if: messages below this many bytes are sent eagerly (default 65536)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    int status = 0;
    if (rank == 0) {
      status = app.exit(error);
    } else {
      status = error.get_exit_code();
    }
    return status == 0 ? 0 : orrery::kExitBadUsage;
  }
  if (!what_if.empty() || app.count("--what-if") > 0) {
    try {
      options.what_if = orrery::analyzer::parse_machine_model(what_if);
      options.what_if->eager_limit = eager_limit;
    } catch (const orrery::Error& error) {
      if (rank == 0) std::cerr << "orrery-analyze: error: " << error.what() << std::endl;
      return error.exit_status();
    }
  }
  if (!memory_limit.empty()) {
    const auto bytes = orrery::parse_byte_size(memory_limit);
    if (!bytes) {
      if (rank == 0) {
        std::cerr << "orrery-analyze: error: --memory-limit '" << memory_limit
                  << "' is not a size (e.g. 512M, 2G)" << std::endl;
      }
      return orrery::kExitBadUsage;
    }
    options.memory_limit = *bytes;
  }
  options.ideal_replay = !no_ideal;
  options.correct_clock_violations = !no_correction;
  options.quiet = quiet;
  options.delay_analysis = !no_delay;
  options.critical_path = !no_critical_path;
  options.keep_cube = false;  // streamed to the report, one metric at a time
  return -1;
}

/// Half the node's memory divided by the analysis processes on it (and, when
/// a process hosts a block of traced ranks, by the ranks of its block:
/// analyze_in_blocks divides again).
uint64_t default_memory_limit() {
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int on_node = 1;
  MPI_Comm_size(node, &on_node);
  MPI_Comm_free(&node);
  return orrery::physical_memory_bytes() / 2 / static_cast<uint64_t>(on_node);
}

}  // namespace

int main(int argc, char** argv) {
  // Funneled: with fewer processes than traced ranks (analyze_in_blocks) the
  // replay threads leave all communication to the main thread.
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  orrery::analyzer::AnalysisOptions options;
  int status = parse(argc, argv, rank, options);
  if (status < 0) {
    options.progress = rank == 0 ? &std::cout : nullptr;
    options.fewer_processes_allowed = provided >= MPI_THREAD_FUNNELED;
    if (options.memory_limit == 0) options.memory_limit = default_memory_limit();
    try {
      const auto result = orrery::analyzer::analyze(options, MPI_COMM_WORLD);
      status = result.traced_ranks == 0
                   ? orrery::kExitOk
                   : orrery::analyzer::analyze_in_blocks(options, result.traced_ranks);
    } catch (const orrery::Error& error) {
      if (rank == 0) std::cerr << "orrery-analyze: error: " << error.what() << std::endl;
      status = error.exit_status();
    }
  }
  MPI_Finalize();
  return status;
}

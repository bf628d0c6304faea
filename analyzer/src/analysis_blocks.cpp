// Fewer analysis processes than traced ranks (analysis.h's
// analyze_in_blocks): the same pipeline per traced rank, one thread each,
// over the block layer of vmpi.h (block_host.h).

#include <atomic>
#include <iostream>
#include <string>

#include "block_host.h"
#include "orrery/analyzer/analysis.h"
#include "orrery/error.h"

namespace orrery::analyzer {

int analyze_in_blocks(const AnalysisOptions& options, uint32_t traced_ranks) {
  int process = 0, processes = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &process);
  MPI_Comm_size(MPI_COMM_WORLD, &processes);
  if (process == 0 && options.progress != nullptr && !options.quiet) {
    const auto starts = vmpi::block_starts(traced_ranks, processes);
    *options.progress << "orrery-analyze: " << traced_ranks << " traced ranks on " << processes
                      << " processes: each replays a block of " << starts[1] - starts[0]
                      << (starts[1] - starts[0] == starts.back() - starts[starts.size() - 2]
                              ? ""
                              : " or " + std::to_string(starts.back() - starts[starts.size() - 2]))
                      << " ranks, one thread each" << std::endl;
  }
  const auto starts = vmpi::block_starts(traced_ranks, processes);
  const uint64_t block_size = starts[static_cast<std::size_t>(process) + 1] -
                              starts[static_cast<std::size_t>(process)];
  std::atomic<int> status{kExitOk};
  vmpi::host_block(traced_ranks, [&](MPI_Comm world, uint32_t rank) {
    AnalysisOptions mine = options;
    mine.fewer_processes_allowed = false;
    // The limit is the process's: its block's ranks share it.
    mine.memory_limit = options.memory_limit / block_size;
    if (rank != 0) mine.progress = nullptr;
    try {
      analyze(mine, world);
    } catch (const Error& error) {
      // Errors are collective: every traced rank has the same; rank 0 says it.
      if (rank == 0) std::cerr << "orrery-analyze: error: " << error.what() << std::endl;
      status = error.exit_status();
    }
  });
  return status;
}

}  // namespace orrery::analyzer

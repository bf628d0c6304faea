#pragma once
// Hosting a contiguous block of traced ranks in one analysis process
// (`mpirun -np M orrery-analyze EXP` with M < N traced ranks). Each traced
// rank of the block is replayed on its own thread by the same SPMD code as
// with one process per rank, over vmpi.h's block layer; the calling thread
// carries the messages between processes (the only thread that calls MPI to
// communicate, so MPI_THREAD_FUNNELED suffices).

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <vector>

namespace orrery::vmpi {

/// The first traced rank of each of `processes` blocks, and `ranks` at the end.
[[nodiscard]] std::vector<uint32_t> block_starts(uint32_t ranks, int processes);

/// Runs `replay(world, traced_rank)` on one thread per traced rank of this
/// process's block; `world` is the traced ranks' world communicator. Returns
/// when every process's threads have finished. Collective over MPI_COMM_WORLD.
void host_block(uint32_t ranks, const std::function<void(MPI_Comm world, uint32_t rank)>& replay);

}  // namespace orrery::vmpi

#pragma once
// The test program's place in MPI_COMM_WORLD, as the unsigned ranks the
// analyzer's tables use.

#include <mpi.h>

#include <cstdint>

namespace orrery::testing {

inline uint32_t world_size_u32() {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return static_cast<uint32_t>(size);
}

inline uint32_t world_rank_u32() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return static_cast<uint32_t>(rank);
}

}  // namespace orrery::testing

/* Communicators an incomplete run must unify by member list and creation
 * order (4 ranks): an even/odd split, two dups of it (the Allreduce on the
 * second, the Barrier on the first), a dup of MPI_COMM_SELF on rank 1 only,
 * and a message on the second dup. Known waits: rank 0 sleeps before each
 * Allreduce (rank 2 waits), rank 2 before the split's Barrier.
 *   comm_mix finalize   ends with MPI_Finalize (a complete experiment)
 *   comm_mix exit       ends with exit(0) without it (an incomplete one)
 * incomplete_vs_complete.py analyzes both and compares them. */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int finalize = argc > 1 && strcmp(argv[1], "finalize") == 0;
  int rank, value = 1, sum = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm half, dup1, dup2, self;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  if (rank == 1) {
    MPI_Comm_dup(MPI_COMM_SELF, &self);
    MPI_Barrier(self);
  }
  MPI_Comm_dup(half, &dup1);
  MPI_Comm_dup(half, &dup2);
  for (int i = 0; i < 3; ++i) {
    if (rank == 0) sleep_ms(100);
    MPI_Allreduce(&value, &sum, 1, MPI_INT, MPI_SUM, dup2);
    MPI_Barrier(dup1);
  }
  if (rank == 2) sleep_ms(200);
  MPI_Barrier(half);
  int half_rank;
  MPI_Comm_rank(half, &half_rank);
  if (half_rank == 1) {
    sleep_ms(50);
    MPI_Send(&value, 1, MPI_INT, 0, 5, dup2);
  } else if (half_rank == 0) {
    MPI_Recv(&sum, 1, MPI_INT, 1, 5, dup2, MPI_STATUS_IGNORE);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (!finalize) exit(0);
  MPI_Finalize();
  return 0;
}

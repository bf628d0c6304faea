/* Two workloads for the what-if replay and the POP efficiencies (what_if.py).
 *   pingpong N US   rank 0 sleeps US microseconds, sends 8 bytes to rank 1
 *                   and waits for its answer, N times (latency-bound);
 *                   other ranks idle.
 *   imbalance N US  every rank sleeps US microseconds (rank 0 five times as
 *                   long) and meets the others at a barrier, N times.
 *   strong N US     strong scaling: every rank sleeps 16 US / P microseconds
 *                   (the work of 16 ranks shared by P) and joins an
 *                   MPI_Allreduce of one double, N times.
 * Usage: e2e_what_if_pingpong OUTDIR MODE N US. Observes per rank the time
 * it slept ("work") and the time from MPI_Init's return to MPI_Finalize ("span"). */
#include <string.h>

#include "observe.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  observe_open(argc, argv);
  if (argc < 5) {
    fprintf(stderr, "usage: %s OUTDIR pingpong|imbalance|strong N US\n", argv[0]);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int imbalance = strcmp(argv[2], "imbalance") == 0;
  const int strong = strcmp(argv[2], "strong") == 0;
  const int iterations = atoi(argv[3]);
  const double pause = atof(argv[4]) * 1e-6;
  int rank, size;
  char buffer[8] = {0};
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double work = 0, sum = 0;
  for (int i = 0; i < iterations; ++i) {
    if (strong) {
      const double start = MPI_Wtime();
      sleep_seconds(16 * pause / size);
      work += MPI_Wtime() - start;
      double one = 1;
      MPI_Allreduce(&one, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      continue;
    }
    if (imbalance || rank == 0) {
      const double start = MPI_Wtime();
      sleep_seconds(imbalance && rank == 0 ? 5 * pause : pause);
      work += MPI_Wtime() - start;
    }
    if (imbalance) {
      MPI_Barrier(MPI_COMM_WORLD);
    } else if (rank == 0) {
      MPI_Send(buffer, 8, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(buffer, 8, MPI_CHAR, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      MPI_Recv(buffer, 8, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buffer, 8, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
    }
  }
  observe("work", work);
  observe_close();
  MPI_Finalize();
  return 0;
}

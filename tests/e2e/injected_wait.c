/* A wait of known length, repeatable: rank 1 sleeps DELAY seconds before each
 * of ITERATIONS sends; rank 0 waits for them in MPI_Recv (Late Sender).
 * Usage: e2e_injected_wait OUTDIR DELAY ITERATIONS. Observes, per iteration
 * i, rank 0's MPI_Wtime at entering and leaving MPI_Recv ("enter<i>",
 * "exit<i>") and rank 1's at entering MPI_Send ("send<i>"): the Late Sender
 * time the program itself saw (ranks share one node, so one clock), which on
 * a busy machine differs from the injected sleep (compare_groups.py). */
#include "observe.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  observe_open(argc, argv);
  if (argc < 4) {
    fprintf(stderr, "usage: %s OUTDIR DELAY ITERATIONS\n", argv[0]);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const double delay = atof(argv[2]);
  const int iterations = atoi(argv[3]);
  int rank, value = 42;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char key[32];
  for (int i = 0; i < iterations; ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
      const double enter = MPI_Wtime();
      MPI_Recv(&value, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      const double exit = MPI_Wtime();
      snprintf(key, sizeof key, "enter%d", i);
      observe(key, enter);
      snprintf(key, sizeof key, "exit%d", i);
      observe(key, exit);
    } else if (rank == 1) {
      sleep_seconds(delay);
      snprintf(key, sizeof key, "send%d", i);
      observe(key, MPI_Wtime());
      MPI_Send(&value, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
    }
  }
  observe_close();
  MPI_Finalize();
  return 0;
}

/* A wait of known length, repeatable: rank 1 sleeps DELAY seconds before each
 * of ITERATIONS sends; rank 0 waits for them in MPI_Recv (Late Sender).
 * Usage: e2e_injected_wait OUTDIR DELAY ITERATIONS. Observes "recv", the
 * total time rank 0 spent in MPI_Recv (compare_groups.py). */
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
  double waited = 0;
  for (int i = 0; i < iterations; ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
      double t0 = MPI_Wtime();
      MPI_Recv(&value, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      waited += MPI_Wtime() - t0;
    } else if (rank == 1) {
      sleep_seconds(delay);
      MPI_Send(&value, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
    }
  }
  if (rank == 0) observe("recv", waited);
  observe_close();
  MPI_Finalize();
  return 0;
}

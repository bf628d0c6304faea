/* The critical path end to end: ITERATIONS times, every rank computes in
 * `compute` (BASE seconds; the last rank BASE + DELAY), then a chain of
 * messages runs from the last rank down to rank 0 (each rank receives from
 * the rank above, then sends to the rank below); a barrier ends the run.
 * Only the last rank never waits, so the critical path runs through its
 * `compute` from the start to the end (critical_path.py checks that
 * against these clocks). Built with -finstrument-functions, so `compute`
 * is a region of its own (the helpers of observe.h are not: their time
 * stays with their caller).
 * Usage: e2e_critical_path OUTDIR BASE DELAY ITERATIONS. Observes per rank
 * the total time inside compute ("compute") and the run's span. */
#include "observe.h"

static double computed;  /* seconds inside compute, by the program's clock */

__attribute__((noinline)) static void compute(double seconds) {
  const double start = MPI_Wtime();
  sleep_seconds(seconds);
  computed += MPI_Wtime() - start;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  observe_open(argc, argv);
  if (argc < 5) {
    fprintf(stderr, "usage: %s OUTDIR BASE DELAY ITERATIONS\n", argv[0]);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const double base = atof(argv[2]), delay = atof(argv[3]);
  const int iterations = atoi(argv[4]);
  int rank, size, value = 42;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < iterations; ++i) {
    compute(rank == size - 1 ? base + delay : base);
    if (rank < size - 1) {
      MPI_Recv(&value, 1, MPI_INT, rank + 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    if (rank > 0) MPI_Send(&value, 1, MPI_INT, rank - 1, 5, MPI_COMM_WORLD);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  observe("compute", computed);
  observe_close();
  MPI_Finalize();
  return 0;
}

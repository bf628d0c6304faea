/* Late arrival into MPI_Init and MPI_Finalize: rank 0 sleeps before
 * MPI_Init, the last rank before MPI_Finalize; every rank reads
 * CLOCK_MONOTONIC (one clock for all ranks of a host) when it calls and
 * leaves MPI_Init and when it calls MPI_Finalize.
 * Expected: init_completion at MPI_Init of rank r ~ min(latest init_enter,
 * init_exit[r]) - init_enter[r]; finalize_wait at MPI_Finalize of rank r ~
 * latest finalize_enter - finalize_enter[r]. */
#include "observe.h"

int main(int argc, char** argv) {
  const double start = monotonic_seconds();
  /* MPI_Comm_rank is not available yet: the launcher's rank variable. */
  const char* env_rank = getenv("OMPI_COMM_WORLD_RANK");
  const int early_rank = env_rank ? atoi(env_rank) : -1;
  if (early_rank == 0) sleep_seconds(0.25);
  const double init_enter = monotonic_seconds();
  MPI_Init(&argc, &argv);
  const double init_exit = monotonic_seconds();
  observe_open(argc, argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  observe("before_init", init_enter - start);
  observe("init_enter", init_enter);
  observe("init_exit", init_exit);
  if (rank == size - 1) sleep_seconds(0.25);
  observe("finalize_enter", monotonic_seconds());
  observe("finalize_exit", 1e30); /* after the barrier: min() picks the latest enter */
  observe_close();
  MPI_Finalize();
  return 0;
}

/* Imbalance before one collective: rank r sleeps delay(r), then calls the
 * collective named by argv[2] (barrier, allreduce, bcast, reduce), and
 * records when it entered and left the call on CLOCK_MONOTONIC (one clock
 * for all ranks of the host). Delays: barrier/allreduce/reduce 0.1*r (the
 * highest rank is last); bcast: the root (rank 1) sleeps 0.3, the others
 * not. Expected per rank: the wait-state metric's definition evaluated on
 * these readings (see run_scenario.py). */
#include <string.h>

#include "observe.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  observe_open(argc, argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const char* which = argc > 2 ? argv[2] : "barrier";
  double in = rank, out = 0;
  observe("sync_enter", monotonic_seconds());
  MPI_Barrier(MPI_COMM_WORLD); /* same call path as a barrier under test: observed too */
  observe("sync_exit", monotonic_seconds());
  if (strcmp(which, "bcast") == 0) {
    if (rank == 1) sleep_seconds(0.3);
  } else {
    sleep_seconds(0.1 * rank);
  }
  observe("call_enter", monotonic_seconds());
  if (strcmp(which, "barrier") == 0) {
    MPI_Barrier(MPI_COMM_WORLD);
  } else if (strcmp(which, "allreduce") == 0) {
    MPI_Allreduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  } else if (strcmp(which, "bcast") == 0) {
    MPI_Bcast(&in, 1, MPI_DOUBLE, 1, MPI_COMM_WORLD);
  } else if (strcmp(which, "reduce") == 0) {
    MPI_Reduce(&in, &out, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  }
  observe("call_exit", monotonic_seconds());
  observe_close();
  MPI_Finalize();
  return 0;
}

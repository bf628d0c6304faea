/* A split communicator: even and odd world ranks form two communicators.
 * In each, the lower member sleeps less, so it waits in a barrier over the
 * sub-communicator; then comm rank 1 sends late to comm rank 0.
 * Expected: wait_at_barrier from the barriers' enter/exit readings on
 * CLOCK_MONOTONIC (one clock for the host), late_sender = min(send enter,
 * receive exit) - receive enter on the same clock, per rank. */
#include "observe.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  observe_open(argc, argv);
  int rank, sub_rank, value = 1;
  MPI_Comm sub;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &sub);
  MPI_Comm_rank(sub, &sub_rank);
  observe("sync_enter", monotonic_seconds());
  MPI_Barrier(MPI_COMM_WORLD); /* same call path as a barrier under test: observed too */
  observe("sync_exit", monotonic_seconds());
  sleep_seconds(0.2 * sub_rank);
  observe("barrier_enter", monotonic_seconds());
  MPI_Barrier(sub);
  observe("barrier_exit", monotonic_seconds());
  if (sub_rank == 0) {
    double t0 = MPI_Wtime();
    observe("p2p_enter", monotonic_seconds());
    MPI_Recv(&value, 1, MPI_INT, 1, 5, sub, MPI_STATUS_IGNORE);
    observe("p2p_exit", monotonic_seconds());
    observe("recv", MPI_Wtime() - t0);
  } else if (sub_rank == 1) {
    sleep_seconds(0.2);
    observe("p2p_enter", monotonic_seconds());
    MPI_Send(&value, 1, MPI_INT, 0, 5, sub);
  }
  MPI_Comm_free(&sub);
  observe_close();
  MPI_Finalize();
  return 0;
}

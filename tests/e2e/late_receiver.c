/* Late receiver: rank 0 first sends a small message with MPI_Send (eager:
 * the library buffers it and the call returns at once), then sends
 * synchronously (MPI_Ssend); rank 1 sleeps before posting each receive.
 * Expected: late_receiver at MPI_Ssend on rank 0 = min(receive enter, Ssend
 * exit) - Ssend enter on CLOCK_MONOTONIC readings ("p2p_enter"/"p2p_exit"),
 * one instance; none at the eager MPI_Send (it did not wait). */
#include "observe.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  observe_open(argc, argv);
  int rank, value = 42;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    double t0 = MPI_Wtime();
    MPI_Send(&value, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
    observe("send", MPI_Wtime() - t0);
    t0 = MPI_Wtime();
    observe("p2p_enter", monotonic_seconds());
    MPI_Ssend(&value, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    observe("p2p_exit", monotonic_seconds());
    observe("ssend", MPI_Wtime() - t0);
    observe("ssend_instances", 1);
  } else if (rank == 1) {
    sleep_seconds(0.15);
    MPI_Recv(&value, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    sleep_seconds(0.15);
    observe("p2p_enter", monotonic_seconds());
    MPI_Recv(&value, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  observe_close();
  MPI_Finalize();
  return 0;
}

/* Late sender, non-blocking: rank 0 posts MPI_Irecv and waits in MPI_Wait;
 * rank 1 sleeps, then MPI_Isend + MPI_Wait.
 * Expected: late_sender at MPI_Wait on rank 0 = min(Isend enter, Wait exit) -
 * Wait enter on the host's CLOCK_MONOTONIC ("p2p_enter"/"p2p_exit"). */
#include "observe.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  observe_open(argc, argv);
  int rank, value = 42;
  MPI_Request request;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Irecv(&value, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &request);
    double t0 = MPI_Wtime();
    observe("p2p_enter", monotonic_seconds());
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    observe("p2p_exit", monotonic_seconds());
    observe("wait", MPI_Wtime() - t0);
  } else if (rank == 1) {
    sleep_seconds(0.3);
    observe("p2p_enter", monotonic_seconds());
    MPI_Isend(&value, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    observe("p2p_exit", monotonic_seconds());
  }
  observe_close();
  MPI_Finalize();
  return 0;
}

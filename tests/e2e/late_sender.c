/* Late sender, blocking: rank 1 sleeps, then sends; rank 0 waits in MPI_Recv.
 * Expected: late_sender at MPI_Recv on rank 0 = min(send enter, recv exit) -
 * recv enter on the host's CLOCK_MONOTONIC ("p2p_enter"/"p2p_exit" of each
 * rank's call); the MPI_Wtime durations are kept for reading along. */
#include "observe.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  observe_open(argc, argv);
  int rank, value = 42;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    double t0 = MPI_Wtime();
    observe("p2p_enter", monotonic_seconds());
    MPI_Recv(&value, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    observe("p2p_exit", monotonic_seconds());
    observe("recv", MPI_Wtime() - t0);
  } else if (rank == 1) {
    sleep_seconds(0.3);
    double t0 = MPI_Wtime();
    observe("p2p_enter", monotonic_seconds());
    MPI_Send(&value, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
    observe("p2p_exit", monotonic_seconds());
    observe("send", MPI_Wtime() - t0);
  }
  observe_close();
  MPI_Finalize();
  return 0;
}

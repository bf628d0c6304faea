/* A rank killed by SIGKILL mid-way (4 ranks), as the out-of-memory killer or
 * a node failure ends one: it writes nothing. Before, messages to and from
 * it: rank 3 sends it a message it never receives (tag 5), it sends rank 0
 * one (tag 6). A known late sender: rank 1 sleeps, then sends; rank 0 waits
 * in MPI_Recv. Then rank 0 tells rank 2 to die (tag 11); the others block
 * in a barrier until mpirun terminates them with SIGTERM.
 * Expected: the survivors analyzed: late_sender at MPI_Recv on rank 0 =
 * min(send enter, receive exit) - receive enter (CLOCK_MONOTONIC readings); unmatched: 2 sends (3->2, 0->2), 1 receive (0<-2); the
 * world's completed instances (MPI_Init, the first barrier) dropped: 2;
 * rank 2's values absent (NaN). */
#include <signal.h>

#include "observe.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  observe_open(argc, argv);
  int rank, value = 42;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 3) MPI_Send(&value, 1, MPI_INT, 2, 5, MPI_COMM_WORLD);
  if (rank == 2) MPI_Send(&value, 1, MPI_INT, 0, 6, MPI_COMM_WORLD);
  if (rank == 0) {
    double t0 = MPI_Wtime();
    observe("p2p_enter", monotonic_seconds());
    MPI_Recv(&value, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    observe("p2p_exit", monotonic_seconds());
    observe("recv", MPI_Wtime() - t0);
    MPI_Recv(&value, 1, MPI_INT, 2, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Send(&value, 1, MPI_INT, 2, 11, MPI_COMM_WORLD);
  } else if (rank == 1) {
    sleep_seconds(0.3);
    observe("p2p_enter", monotonic_seconds());
    MPI_Send(&value, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
  } else if (rank == 2) {
    MPI_Recv(&value, 1, MPI_INT, 0, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    observe_close();
    raise(SIGKILL);
  }
  observe_close();
  MPI_Barrier(MPI_COMM_WORLD); /* never completes: rank 2 is gone */
  MPI_Finalize();
  return 0;
}

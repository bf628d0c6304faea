/* A run that never reaches MPI_Finalize (2 ranks). A known late sender
 * first: rank 1 sleeps, then sends; rank 0 waits in MPI_Recv. Then what a
 * truncated run leaves behind: rank 1 sends a message rank 0 never receives
 * (tag 8) and broadcasts from root 1 alone (rank 0 never calls it; the
 * one-int message goes out eagerly, so the root completes), then tells rank 0
 * it is done (tag 9). Then one rank ends and the other, blocked in an
 * MPI_Recv that never completes, is terminated by mpirun with SIGTERM, as a
 * job's remaining ranks are when one rank dies:
 *   exit_early OUTDIR         rank 0 calls exit(3) without MPI_Finalize
 *   exit_early OUTDIR sigterm rank 1 raises SIGTERM on itself (a job killed
 *                             at its walltime: every rank ends by SIGTERM)
 * Expected: late_sender at MPI_Recv on rank 0 = min(send enter, receive
 * exit) - receive enter of the first message (CLOCK_MONOTONIC readings); 1 send without receive; 1 collective instance dropped. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "observe.h"

/* Waits for a message that is never sent, until the job is terminated. */
static void block_until_terminated(void) {
  int value = 0;
  MPI_Recv(&value, 1, MPI_INT, MPI_ANY_SOURCE, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  observe_open(argc, argv);
  const int sigterm = argc > 2 && strcmp(argv[2], "sigterm") == 0;
  int rank, value = 42;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    double t0 = MPI_Wtime();
    observe("p2p_enter", monotonic_seconds());
    MPI_Recv(&value, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    observe("p2p_exit", monotonic_seconds());
    observe("recv", MPI_Wtime() - t0);
    MPI_Recv(&value, 1, MPI_INT, 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    observe_close();
    if (sigterm) block_until_terminated();
    exit(3);
  } else if (rank == 1) {
    sleep_seconds(0.3);
    observe("p2p_enter", monotonic_seconds());
    MPI_Send(&value, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
    MPI_Send(&value, 1, MPI_INT, 0, 8, MPI_COMM_WORLD);
    MPI_Bcast(&value, 1, MPI_INT, 1, MPI_COMM_WORLD);
    MPI_Send(&value, 1, MPI_INT, 0, 9, MPI_COMM_WORLD);
    observe_close();
    if (sigterm) raise(SIGTERM);
    block_until_terminated();
  }
  return 0; /* not reached with 2 ranks */
}

/* A run that never reaches MPI_Finalize (2 ranks). A known late sender
 * first: rank 1 sleeps, then sends; rank 0 waits in MPI_Recv. Then what a
 * truncated run leaves behind: rank 1 sends a message rank 0 never receives
 * (tag 8) and broadcasts from root 1 alone (rank 0 never calls it; the
 * one-int message goes out eagerly, so the root completes), then tells rank 0
 * it is done (tag 9).
 *   exit_early OUTDIR         both ranks call exit(3) without MPI_Finalize
 *   exit_early OUTDIR sigterm rank 1 raises SIGTERM on itself after "done";
 *                             rank 0 then blocks in an MPI_Recv that never
 *                             completes, until mpirun terminates it (SIGTERM),
 *                             as a job killed at its walltime would be
 * Expected: late_sender at MPI_Recv on rank 0 ~ its observed time of the
 * first MPI_Recv; 1 send without receive; 1 collective instance dropped. */
#include <signal.h>
#include <string.h>

#include "observe.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  observe_open(argc, argv);
  const int sigterm = argc > 2 && strcmp(argv[2], "sigterm") == 0;
  int rank, value = 42;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    double t0 = MPI_Wtime();
    MPI_Recv(&value, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    observe("recv", MPI_Wtime() - t0);
    MPI_Recv(&value, 1, MPI_INT, 1, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (sigterm) {
      observe_close();
      /* Never sent: waits here until the job is terminated. */
      MPI_Recv(&value, 1, MPI_INT, 1, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  } else if (rank == 1) {
    sleep_seconds(0.3);
    MPI_Send(&value, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
    MPI_Send(&value, 1, MPI_INT, 0, 8, MPI_COMM_WORLD);
    MPI_Bcast(&value, 1, MPI_INT, 1, MPI_COMM_WORLD);
    MPI_Send(&value, 1, MPI_INT, 0, 9, MPI_COMM_WORLD);
    if (sigterm) {
      observe_close();
      raise(SIGTERM);
    }
  }
  /* Give the other rank time to finish what it records before mpirun
   * reacts to this one's exit. */
  sleep_seconds(0.2);
  observe_close();
  exit(3);
}

/* A tiny MPI program whose ending the launcher tests control:
 *   --exit N    all ranks finalize and return N
 *   --abort N   rank 1 (0 on one rank) calls MPI_Abort(N) while the others
 *               block in a receive that never completes
 *   --sleep S   rank 0 sleeps S seconds between Init and Finalize (signals)
 *   --exit-early N  all ranks exit(N) after a barrier, never finalizing */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
  int exit_code = 0, abort_code = -1, sleep_seconds = 0, early_code = -1;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--exit") == 0) exit_code = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--abort") == 0) abort_code = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--sleep") == 0) sleep_seconds = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--exit-early") == 0) early_code = atoi(argv[i + 1]);
  }
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Barrier(MPI_COMM_WORLD);
  if (early_code >= 0) exit(early_code);
  if (abort_code >= 0) {
    int aborter = size > 1 ? 1 : 0;
    if (rank == aborter) {
      MPI_Abort(MPI_COMM_WORLD, abort_code);
    } else {
      int never;
      MPI_Recv(&never, 1, MPI_INT, aborter, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  }
  if (rank == 0) {
    for (int s = 0; s < sleep_seconds; ++s) sleep(1);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return exit_code;
}

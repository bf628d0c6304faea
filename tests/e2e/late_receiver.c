/* Late receiver: rank 0 sends synchronously (MPI_Ssend) at once; rank 1
 * sleeps before posting the receive.
 * Expected: late_receiver at MPI_Ssend on rank 0 ~ its observed MPI_Ssend time. */
#include "observe.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  observe_open(argc, argv);
  int rank, value = 42;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    double t0 = MPI_Wtime();
    MPI_Ssend(&value, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
    observe("ssend", MPI_Wtime() - t0);
  } else if (rank == 1) {
    sleep_seconds(0.3);
    MPI_Recv(&value, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  observe_close();
  MPI_Finalize();
  return 0;
}

/* The program the documentation's examples call ./app (app.c): a small
 * solver loop with a late sender and a reduction, so that every metric the
 * examples name (late_sender, mpi, time, visits) has values and a call path
 * named "solve" exists. Built with orrery-instrument (compiler regions). */
#include <mpi.h>
#include <time.h>

static void compute(double seconds) {
  struct timespec ts = {0, (long)(seconds * 1e9)};
  nanosleep(&ts, NULL);
}

static void solve(int rank, int size) {
  int value = rank;
  /* Odd ranks compute longer before sending: their partners wait. */
  compute(rank % 2 ? 0.02 : 0.002);
  if (rank % 2 == 1) {
    MPI_Send(&value, 1, MPI_INT, rank - 1, 0, MPI_COMM_WORLD);
  } else if (rank + 1 < size) {
    MPI_Recv(&value, 1, MPI_INT, rank + 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  int sum = 0;
  MPI_Allreduce(&value, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int step = 0; step < 3; ++step) solve(rank, size);
  MPI_Finalize();
  return 0;
}

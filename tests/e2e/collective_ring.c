/* A high-rate collective ring (issue 15): ITERATIONS (argv[1], default
 * 20000) rounds of MPI_Allreduce and an MPI_Sendrecv to the right
 * neighbour, with a barrier every 4th round. Thousands of short messages
 * per second between ranks on one machine: with one time base per node,
 * none of them may arrive "before it was sent" (clock_condition.py). */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long iterations = argc > 1 ? atol(argv[1]) : 20000;
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  double value = rank, sum = 0, incoming = 0;
  for (long i = 0; i < iterations; ++i) {
    MPI_Allreduce(&value, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Sendrecv(&sum, 1, MPI_DOUBLE, right, 7, &incoming, 1, MPI_DOUBLE, left, 7, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    value = incoming * 0.5;
    if (i % 4 == 3) MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}

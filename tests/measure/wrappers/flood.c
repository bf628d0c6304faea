/* Many events through a buffer far too small: flushes, and every event kept. */
#include "expect.h"
#include <orrery/orrery.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int iterations = 3000;
  const int left = (rank + size - 1) % size, right = (rank + 1) % size;
  long sum = 0;
  for (int i = 0; i < iterations; ++i) {
    int in = -1, out = i;
    MPI_Request r[2];
    ORRERY_REGION_BEGIN("iteration");
    MPI_Irecv(&in, 1, MPI_INT, left, i % 7, MPI_COMM_WORLD, &r[0]);
    MPI_Isend(&out, 1, MPI_INT, right, i % 7, MPI_COMM_WORLD, &r[1]);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    ORRERY_REGION_END("iteration");
    sum += in;
  }
  expect("%d MPI_ISEND", iterations);
  expect("%d MPI_IRECV", iterations);
  expect("%d ENTER Region=iteration", iterations);
  expect("%d ENTER Region=MPI_Waitall", iterations);
  printf("RESULT rank %d sum %ld\n", rank, sum);
  MPI_Finalize();
  return 0;
}

/* Built by the tests with `orrery-instrument mpicc`: its functions must appear
 * in the trace as compiler regions with this file and their line. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* Not inlined, so that each call enters a region. */
__attribute__((noinline)) static double work_item(int i) {
  double x = 0.0;
  for (int k = 0; k < 1000; ++k) x += (double)((i + k) % 13);
  return x;
}

__attribute__((noinline)) static double phase(int items) {
  double sum = 0.0;
  for (int i = 0; i < items; ++i) sum += work_item(i);
  return sum;
}

int main(int argc, char** argv) {
  int items = argc > 1 ? atoi(argv[1]) : 10;
  MPI_Init(&argc, &argv);
  double local = phase(items), total = 0.0;
  MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  printf("instrumented_app: %.1f\n", total);
  return 0;
}

/* A user program with Orrery user regions, built against the installed
 * package (find_package(Orrery) or pkg-config). It prints the file the
 * region API resolved to, so the test can tell the installed library from
 * the build tree's, and how often it entered each region. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <mpi.h>
#include <orrery/orrery.h>
#include <stdio.h>

enum { kIterations = 7 };

static double solve(int rank) {
  double sum = 0.0;
  ORRERY_REGION_BEGIN("consumer_solve");
  for (int i = 0; i < 100000 * (rank + 1); ++i) sum += 1.0 / (i + 1.0);
  ORRERY_REGION_END("consumer_solve");
  return sum;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double local = 0.0;
  for (int i = 0; i < kIterations; ++i) local += solve(rank);
  double total = 0.0;
  MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    Dl_info info;
    const void* api = (const void*)orrery_region_begin;
    if (api != NULL && dladdr(api, &info) != 0 && info.dli_fname != NULL) {
      printf("measure library: %s\n", info.dli_fname);
    } else {
      printf("measure library: none\n");
    }
    printf("iterations: %d\n", kIterations);
  }
  MPI_Finalize();
  return total > 0.0 ? 0 : 1;
}

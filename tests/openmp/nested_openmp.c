/* Nested OpenMP parallel regions in an MPI program, measured by
 * tests/openmp/run_nested.py. Every rank (two active levels):
 *   an outer parallel region of 2 threads; outer thread o opens an inner
 *   region of 2 threads, in which inner thread i works (1 + i + 2 o) units
 *   and waits at the inner region's barrier; after the inner region, outer
 *   thread o works 4 (1 - o) units more and waits at the outer region's
 *   explicit barrier for the other outer thread (thread 1, about 2 units).
 *   Then, in a parallel region of its own, thread 1 duplicates MPI_COMM_WORLD,
 *   calls MPI_Barrier on the copy and frees it: a communicator created on a
 *   worker thread, which the analysis warns about.
 * Each thread writes what it saw with its own clock (CLOCK_MONOTONIC) to
 * OUTDIR/rank<r>.txt: per outer thread its arrival at and departure from the
 * outer barrier, per (outer, inner) pair the time it worked. */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

#include "../e2e/observe.h"
#include "thread_multiple.h"

static const double kUnit = 0.04;

int main(int argc, char** argv) {
  init_thread_multiple(&argc, &argv, "nested_openmp");
  observe_open(argc, argv);
  omp_set_max_active_levels(2);
  double arrive[2] = {0}, leave[2] = {0}, work[2][2] = {{0}};
  int inner_threads[2] = {0};
  MPI_Barrier(MPI_COMM_WORLD);
#pragma omp parallel num_threads(2)
  {
    const int o = omp_get_thread_num();
#pragma omp parallel num_threads(2)
    {
      const int i = omp_get_thread_num();
      if (i == 0) inner_threads[o] = omp_get_num_threads();
      const double begin = monotonic_seconds();
      sleep_seconds((1 + i + 2 * o) * kUnit);
      work[o][i] = monotonic_seconds() - begin;
#pragma omp barrier
    }
    sleep_seconds(4 * (1 - o) * kUnit);
    arrive[o] = monotonic_seconds();
#pragma omp barrier
    leave[o] = monotonic_seconds();
  }
#pragma omp parallel num_threads(2)
  if (omp_get_thread_num() == 1) {
    MPI_Comm copy;
    MPI_Comm_dup(MPI_COMM_WORLD, &copy);
    MPI_Barrier(copy);
    MPI_Comm_free(&copy);
  }
  char key[64];
  for (int o = 0; o < 2; ++o) {
    snprintf(key, sizeof key, "arrive_%d", o), observe(key, arrive[o]);
    snprintf(key, sizeof key, "leave_%d", o), observe(key, leave[o]);
    snprintf(key, sizeof key, "inner_threads_%d", o), observe(key, inner_threads[o]);
    for (int i = 0; i < 2; ++i) snprintf(key, sizeof key, "work_%d_%d", o, i), observe(key, work[o][i]);
  }
  observe_close();
  MPI_Finalize();
  return 0;
}

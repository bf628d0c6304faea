/* A hybrid MPI + OpenMP program with known OpenMP wait states, measured by
 * tests/openmp/run_hybrid.py. Every rank (MPI_THREAD_MULTIPLE):
 *   1. a parallel region of NT threads in which thread t works (1 + t) units
 *      and then waits at an explicit barrier for the slowest;
 *   2. a serial phase of 2 units on the master (the other threads idle);
 *   3. a parallel region whose threads each hold a critical section for one
 *      unit (all but the first wait for it);
 *   4. a parallel region of 2 threads in which thread t of rank 0 receives
 *      tag t from rank 1, whose thread t sends it after (1 + t) units.
 * What each thread saw, with the program's own clock (CLOCK_MONOTONIC, one
 * clock for all ranks of a host: MPI_Wtime may count from each process's
 * own start), goes to
 * OUTDIR/rank<r>.txt as "key value" lines (observe.h). "Work" is sleeping:
 * on two shared cores a sleeping thread's time does not depend on the load. */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "../e2e/observe.h"

static const double kUnit = 0.04;

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  if (provided < MPI_THREAD_MULTIPLE) {
    fprintf(stderr, "hybrid_openmp: MPI_THREAD_MULTIPLE not provided\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  observe_open(argc, argv);
  const int threads = argc > 2 ? atoi(argv[2]) : 3;
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  double arrive[64], leave[64], critical_enter[64], critical_held[64];
  MPI_Barrier(MPI_COMM_WORLD);

  /* 1. imbalanced work before a barrier */
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
    sleep_seconds((1 + t) * kUnit);
    arrive[t] = now_seconds();
#pragma omp barrier
    leave[t] = now_seconds();
  }
  /* 2. serial work on the master */
  const double serial_begin = now_seconds();
  sleep_seconds(2 * kUnit);
  const double serial_end = now_seconds();

  /* 3. contention for a critical section */
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
    critical_enter[t] = now_seconds();
#pragma omp critical(orrery_test_lock)
    {
      critical_held[t] = now_seconds();
      sleep_seconds(kUnit);
    }
  }

  /* 4. MPI from two threads of each rank (ranks 0 and 1 only) */
  double recv_enter[2] = {0, 0}, recv_exit[2] = {0, 0}, send_enter[2] = {0, 0};
  if (size >= 2 && rank < 2) {
#pragma omp parallel num_threads(2)
    {
      const int t = omp_get_thread_num();
      int value = t;
      if (rank == 0) {
        recv_enter[t] = now_seconds();
        MPI_Recv(&value, 1, MPI_INT, 1, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        recv_exit[t] = now_seconds();
      } else {
        sleep_seconds((1 + t) * kUnit);
        send_enter[t] = now_seconds();
        MPI_Send(&value, 1, MPI_INT, 0, t, MPI_COMM_WORLD);
      }
    }
  }
  char key[64];
  observe("threads", threads);
  for (int t = 0; t < threads; ++t) {
    snprintf(key, sizeof key, "arrive_%d", t), observe(key, arrive[t]);
    snprintf(key, sizeof key, "leave_%d", t), observe(key, leave[t]);
    snprintf(key, sizeof key, "critical_enter_%d", t), observe(key, critical_enter[t]);
    snprintf(key, sizeof key, "critical_held_%d", t), observe(key, critical_held[t]);
  }
  observe("serial_begin", serial_begin);
  observe("serial_end", serial_end);
  for (int t = 0; t < 2; ++t) {
    snprintf(key, sizeof key, "recv_enter_%d", t), observe(key, recv_enter[t]);
    snprintf(key, sizeof key, "recv_exit_%d", t), observe(key, recv_exit[t]);
    snprintf(key, sizeof key, "send_enter_%d", t), observe(key, send_enter[t]);
  }
  observe_close();
  MPI_Finalize();
  return 0;
}

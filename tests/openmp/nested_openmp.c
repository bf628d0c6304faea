/* Nested OpenMP parallel regions in an MPI program, measured by
 * tests/openmp/run_nested.py. Every rank (two active levels):
 *   an outer parallel region of 2 threads; outer thread o opens an inner
 *   region of 2 threads, in which inner thread i works (1 + i + 2 o) units
 *   and waits at the inner region's barrier; after the inner region, outer
 *   thread o works 4 (1 - o) units more and waits at the outer region's
 *   explicit barrier for the other outer thread (thread 1, about 2 units).
 *   Then communicators created on threads, in a parallel region of 2
 *   threads: each thread duplicates MPI_COMM_WORLD (in turn, so that the
 *   creations on one parent are ordered alike on every rank), its own
 *   communicator, and calls MPI_Barrier on it: on rank 0 thread t after
 *   2 t units, on rank 1 thread 1 at once and thread 0 after 3 units (the
 *   other rank's thread waits). Thread 1 then splits MPI_COMM_WORLD in
 *   reverse rank order and calls MPI_Allreduce on that, rank 0 two units
 *   late. Every communicator is freed on the thread that made it.
 *   Then requests completed on another thread than the one that posted them
 *   (requests_across_threads below).
 * Each thread writes what it saw with its own clock (CLOCK_MONOTONIC) to
 * OUTDIR/rank<r>.txt: per outer thread its arrival at and departure from the
 * outer barrier, per (outer, inner) pair the time it worked and its arrival
 * at and departure from the inner barrier, and the enter
 * and exit of each collective on the threads' communicators. */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>

#include "../e2e/observe.h"
#include "thread_multiple.h"

static const double kUnit = 0.04;

/* Requests posted on one thread and completed on another (a team of 2):
 *   a. rank 0's thread 1 posts MPI_Irecv in a parallel region, the MPI thread
 *      waits for it after the region; rank 1 sends 2 units late (Late Sender
 *      in rank 0's MPI_Wait);
 *   b. thread 1 of every rank starts MPI_Iallreduce, on rank 1 2 units late;
 *      the MPI thread completes it in MPI_Wait after the region;
 *   c. rank 0's MPI thread posts MPI_Isend, thread 1 completes it in MPI_Wait
 *      inside a parallel region. */
static void requests_across_threads(int rank) {
  int value = rank, sum = 0, message = 0;
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Barrier(MPI_COMM_WORLD);
#pragma omp parallel num_threads(2)
  if (omp_get_thread_num() == 1 && rank == 0) MPI_Irecv(&message, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, &request);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    observe("irecv_wait_enter", monotonic_seconds());
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    observe("irecv_wait_exit", monotonic_seconds());
  } else {
    sleep_seconds(2 * kUnit);
    observe("irecv_send_enter", monotonic_seconds());
    MPI_Send(&value, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
  }
#pragma omp parallel num_threads(2)
  if (omp_get_thread_num() == 1) {
    if (rank == 1) sleep_seconds(2 * kUnit);
    MPI_Iallreduce(&value, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &request);
  }
  observe("iallreduce_wait_enter", monotonic_seconds());
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  observe("iallreduce_wait_exit", monotonic_seconds());
  if (rank == 0) MPI_Isend(&value, 1, MPI_INT, 1, 8, MPI_COMM_WORLD, &request);
#pragma omp parallel num_threads(2)
  if (omp_get_thread_num() == 1 && rank == 0) MPI_Wait(&request, MPI_STATUS_IGNORE);
  if (rank == 1) MPI_Recv(&message, 1, MPI_INT, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

int main(int argc, char** argv) {
  init_thread_multiple(&argc, &argv, "nested_openmp");
  observe_open(argc, argv);
  omp_set_max_active_levels(2);
  double arrive[2] = {0}, leave[2] = {0}, work[2][2] = {{0}};
  double inner_arrive[2][2] = {{0}}, inner_leave[2][2] = {{0}};
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
      inner_arrive[o][i] = monotonic_seconds();
      work[o][i] = inner_arrive[o][i] - begin;
#pragma omp barrier
      inner_leave[o][i] = monotonic_seconds();
    }
    sleep_seconds(4 * (1 - o) * kUnit);
    arrive[o] = monotonic_seconds();
#pragma omp barrier
    leave[o] = monotonic_seconds();
  }
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double barrier_enter[2] = {0}, barrier_exit[2] = {0}, split_enter = 0, split_exit = 0;
#pragma omp parallel num_threads(2)
  {
    const int t = omp_get_thread_num();
    MPI_Comm own = MPI_COMM_NULL;
    for (int k = 0; k < 2; ++k) {
      if (t == k) MPI_Comm_dup(MPI_COMM_WORLD, &own);
#pragma omp barrier
    }
    sleep_seconds((rank == 0 ? 2 * t : (t == 1 ? 0 : 3)) * kUnit);
    barrier_enter[t] = monotonic_seconds();
    MPI_Barrier(own);
    barrier_exit[t] = monotonic_seconds();
    if (t == 1) {
      MPI_Comm reversed;
      MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &reversed);
      if (rank == 0) sleep_seconds(2 * kUnit);
      int value = rank, sum = 0;
      split_enter = monotonic_seconds();
      MPI_Allreduce(&value, &sum, 1, MPI_INT, MPI_SUM, reversed);
      split_exit = monotonic_seconds();
      MPI_Comm_free(&reversed);
    }
    MPI_Comm_free(&own);
  }
  char key[64];
  for (int t = 0; t < 2; ++t) {
    snprintf(key, sizeof key, "barrier_enter_%d", t), observe(key, barrier_enter[t]);
    snprintf(key, sizeof key, "barrier_exit_%d", t), observe(key, barrier_exit[t]);
  }
  observe("split_enter", split_enter);
  observe("split_exit", split_exit);
  requests_across_threads(rank);
  for (int o = 0; o < 2; ++o) {
    snprintf(key, sizeof key, "arrive_%d", o), observe(key, arrive[o]);
    snprintf(key, sizeof key, "leave_%d", o), observe(key, leave[o]);
    snprintf(key, sizeof key, "inner_threads_%d", o), observe(key, inner_threads[o]);
    for (int i = 0; i < 2; ++i) {
      snprintf(key, sizeof key, "work_%d_%d", o, i), observe(key, work[o][i]);
      snprintf(key, sizeof key, "inner_arrive_%d_%d", o, i), observe(key, inner_arrive[o][i]);
      snprintf(key, sizeof key, "inner_leave_%d_%d", o, i), observe(key, inner_leave[o][i]);
    }
  }
  observe_close();
  MPI_Finalize();
  return 0;
}

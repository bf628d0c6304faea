/* A hybrid MPI + OpenMP program with known OpenMP wait states, measured by
 * tests/openmp/run_hybrid.py. Every rank (MPI_THREAD_MULTIPLE):
 *   1. a parallel region of NT threads in which thread t works (1 + t) units
 *      and then waits at an explicit barrier for the slowest;
 *   2. a serial phase of 2 units on the master (the other threads idle);
 *   3. a parallel region whose threads each hold a critical section for one
 *      unit (all but the first wait for it);
 *   4. a parallel region of 2 threads on ranks 0 and 1 (MPI_THREAD_MULTIPLE):
 *      rank 1's thread t sends tag t after (1 + t) units, received by rank
 *      0's thread t (Late Sender on both threads); rank 1's MPI thread then
 *      sends tag 2 at 3 units, received by rank 0's thread 1 (a message from
 *      an MPI thread to another thread); rank 1's thread 1 then posts an
 *      MPI_Ssend of tag 3 that rank 0's thread 1 receives only after one
 *      more unit (Late Receiver on rank 1's thread 1), and one unit after
 *      that an MPI_Isend of tag 4, for which rank 0's thread 1 waits in
 *      MPI_Wait on an MPI_Irecv (Late Sender in a wait), then an MPI_Send
 *      of tag 5 that rank 0's thread 1 matches with MPI_Mprobe and receives
 *      with MPI_Mrecv. With a third
 *      argument containing "no-cross" the tag 2 message is left out.
 *   5. a parallel region of NT threads in which one thread creates 2 NT
 *      explicit tasks of one unit each; whichever thread is free runs them.
 *   6. collectives on worker threads (a parallel region of 2 threads on every
 *      rank): thread 1 calls MPI_Barrier, on rank 1 after 2 units (Wait at
 *      Barrier on the other ranks' thread 1); after an OpenMP barrier, rank
 *      0's MPI thread calls MPI_Allreduce after 2 units while the other ranks
 *      call it on thread 1 at once (Wait at NxN there, the same communicator
 *      taking turns between the MPI thread and a worker). With "no-mixed"
 *      in the third argument every rank calls the MPI_Allreduce on thread 1
 *      (with --no-openmp no worker is traced: an instance traced on one rank
 *      and not on another cannot be paired). Then thread 1 starts an
 *      MPI_Iallreduce, on rank 1 after 2 units, and waits for it in MPI_Wait
 *      (Wait at NxN in the MPI_Wait on the other ranks' thread 1).
 * What each thread saw, with the program's own clock (CLOCK_MONOTONIC, one
 * clock for all ranks of a host: MPI_Wtime may count from each process's
 * own start), goes to
 * OUTDIR/rank<r>.txt as "key value" lines (observe.h). "Work" is sleeping:
 * on two shared cores a sleeping thread's time does not depend on the load. */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../e2e/observe.h"
#include "thread_multiple.h"

static const double kUnit = 0.04;

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char** argv) {
  init_thread_multiple(&argc, &argv, "hybrid_openmp");
  observe_open(argc, argv);
  const int threads = argc > 2 ? atoi(argv[2]) : 3;
  const int cross = !(argc > 3 && strstr(argv[3], "no-cross") != NULL);
  const int mixed = !(argc > 3 && strstr(argv[3], "no-mixed") != NULL);
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

  /* 4. MPI from two threads of each rank (ranks 0 and 1 only); index = tag */
  double recv_enter[6] = {0}, recv_exit[6] = {0}, send_enter[6] = {0}, send_exit[6] = {0};
  if (size >= 2 && rank < 2) {
    const double start = now_seconds();
#pragma omp parallel num_threads(2)
    {
      const int t = omp_get_thread_num();
      int value = t;
      if (rank == 0) {
        static const int tags[2][3] = {{0, -1, -1}, {1, 2, 3}};
        for (int i = 0; i < 3 && tags[t][i] >= 0; ++i) {
          const int tag = tags[t][i];
          if (tag == 2 && !cross) continue;
          if (tag == 3) sleep_seconds(kUnit);
          recv_enter[tag] = now_seconds();
          MPI_Recv(&value, 1, MPI_INT, 1, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          recv_exit[tag] = now_seconds();
        }
        if (t == 1) { /* tag 4: an MPI_Irecv completed by MPI_Wait on this thread */
          MPI_Request request;
          MPI_Irecv(&value, 1, MPI_INT, 1, 4, MPI_COMM_WORLD, &request);
          recv_enter[4] = now_seconds();
          MPI_Wait(&request, MPI_STATUS_IGNORE);
          recv_exit[4] = now_seconds();
          /* tag 5: matched by MPI_Mprobe, received by MPI_Mrecv */
          MPI_Message message;
          MPI_Status status;
          recv_enter[5] = now_seconds();
          MPI_Mprobe(1, 5, MPI_COMM_WORLD, &message, &status);
          MPI_Mrecv(&value, 1, MPI_INT, &message, MPI_STATUS_IGNORE);
          recv_exit[5] = now_seconds();
        }
      } else {
        sleep_seconds((1 + t) * kUnit);
        send_enter[t] = now_seconds();
        MPI_Send(&value, 1, MPI_INT, 0, t, MPI_COMM_WORLD);
        send_exit[t] = now_seconds();
        const int tag = t == 0 ? 2 : 3;
        const double until = start + 3 * kUnit - now_seconds();
        if (t == 0 && until > 0) sleep_seconds(until);
        send_enter[tag] = now_seconds();
        if (t == 0) {
          if (cross) MPI_Send(&value, 1, MPI_INT, 0, tag, MPI_COMM_WORLD);
        } else {
          MPI_Ssend(&value, 1, MPI_INT, 0, tag, MPI_COMM_WORLD);
        }
        send_exit[tag] = now_seconds();
        if (t == 1) {
          sleep_seconds(kUnit);
          MPI_Request request;
          send_enter[4] = now_seconds();
          MPI_Isend(&value, 1, MPI_INT, 0, 4, MPI_COMM_WORLD, &request);
          MPI_Wait(&request, MPI_STATUS_IGNORE);
          send_enter[5] = now_seconds();
          MPI_Send(&value, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
        }
      }
    }
  }
  /* 5. explicit tasks */
  const int tasks = 2 * threads < 128 ? 2 * threads : 128;
  int task_thread[128];
  double task_begin[128], task_end[128];
#pragma omp parallel num_threads(threads)
  {
#pragma omp single
    for (int k = 0; k < tasks; ++k) {
#pragma omp task firstprivate(k)
      {
        task_thread[k] = omp_get_thread_num();
        task_begin[k] = now_seconds();
        sleep_seconds(kUnit);
        task_end[k] = now_seconds();
      }
    }
  }

  /* 6. collectives on worker threads; index 0 the barrier, 1 the allreduce,
   * 2 the non-blocking allreduce (its exit: that of the MPI_Wait) */
  double coll_enter[3] = {0}, coll_exit[3] = {0};
  int coll_thread[3] = {-1, -1, -1};
#pragma omp parallel num_threads(2)
  {
    const int t = omp_get_thread_num();
    if (t == 1) {
      if (rank == 1) sleep_seconds(2 * kUnit);
      coll_thread[0] = t;
      coll_enter[0] = now_seconds();
      MPI_Barrier(MPI_COMM_WORLD);
      coll_exit[0] = now_seconds();
    }
#pragma omp barrier
    const int caller = rank == 0 && mixed ? 0 : 1;
    if (t == caller) {
      int one = 1, sum = 0;
      if (rank == 0) sleep_seconds(2 * kUnit);
      coll_thread[1] = t;
      coll_enter[1] = now_seconds();
      MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
      coll_exit[1] = now_seconds();
      if (sum != size) fprintf(stderr, "hybrid_openmp: MPI_Allreduce gave %d\n", sum);
    }
#pragma omp barrier
    if (t == 1) {
      int one = 1, sum = 0;
      MPI_Request request;
      if (rank == 1) sleep_seconds(2 * kUnit);
      coll_thread[2] = t;
      coll_enter[2] = now_seconds();
      MPI_Iallreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &request);
      MPI_Wait(&request, MPI_STATUS_IGNORE);
      coll_exit[2] = now_seconds();
    }
  }

  char key[64];
  for (int k = 0; k < 3; ++k) {
    snprintf(key, sizeof key, "coll_thread_%d", k), observe(key, coll_thread[k]);
    snprintf(key, sizeof key, "coll_enter_%d", k), observe(key, coll_enter[k]);
    snprintf(key, sizeof key, "coll_exit_%d", k), observe(key, coll_exit[k]);
  }
  observe("threads", threads);
  observe("tasks", tasks);
  for (int k = 0; k < tasks; ++k) {
    snprintf(key, sizeof key, "task_thread_%d", k), observe(key, task_thread[k]);
    snprintf(key, sizeof key, "task_time_%d", k), observe(key, task_end[k] - task_begin[k]);
  }
  for (int t = 0; t < threads; ++t) {
    snprintf(key, sizeof key, "arrive_%d", t), observe(key, arrive[t]);
    snprintf(key, sizeof key, "leave_%d", t), observe(key, leave[t]);
    snprintf(key, sizeof key, "critical_enter_%d", t), observe(key, critical_enter[t]);
    snprintf(key, sizeof key, "critical_held_%d", t), observe(key, critical_held[t]);
  }
  observe("serial_begin", serial_begin);
  observe("serial_end", serial_end);
  for (int tag = 0; tag < 6; ++tag) {
    snprintf(key, sizeof key, "recv_enter_%d", tag), observe(key, recv_enter[tag]);
    snprintf(key, sizeof key, "recv_exit_%d", tag), observe(key, recv_exit[tag]);
    snprintf(key, sizeof key, "send_enter_%d", tag), observe(key, send_enter[tag]);
    snprintf(key, sizeof key, "send_exit_%d", tag), observe(key, send_exit[tag]);
  }
  observe_close();
  MPI_Finalize();
  return 0;
}

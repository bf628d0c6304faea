/* Cost of OpenMP measurement (issue 14): per parallel region, per barrier,
 * and per Enter+Leave pair on each thread (an uncontended omp_set_lock is one
 * "omp_set_lock" region instance on the calling thread's location).
 *   mpirun -np 1 bench_omp_cost THREADS [REPEAT]
 * Prints best-of-5 nanoseconds; run_omp_bench.py runs it with and without
 * measurement (both on LLVM's libomp) and prints the differences. */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return 1e9 * (double)t.tv_sec + (double)t.tv_nsec;
}

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  const int threads = argc > 1 ? atoi(argv[1]) : 2;
  const long repeat = argc > 2 ? atol(argv[2]) : 2000;
  double region = 1e300, barrier = 1e300;
  double pair[64];
  for (int t = 0; t < 64; ++t) pair[t] = 1e300;
  for (int round = 0; round < 5; ++round) {
    double start = now_ns();
    for (long i = 0; i < repeat; ++i) {
#pragma omp parallel num_threads(threads)
      { __asm__ volatile(""); }
    }
    double ns = (now_ns() - start) / (double)repeat;
    if (ns < region) region = ns;
#pragma omp parallel num_threads(threads)
    {
      double begin = now_ns();
      for (long i = 0; i < repeat; ++i) {
#pragma omp barrier
      }
      double per = (now_ns() - begin) / (double)repeat;
#pragma omp master
      if (per < barrier) barrier = per;
      omp_lock_t lock;
      omp_init_lock(&lock);
      const int t = omp_get_thread_num();
      begin = now_ns();
      for (long i = 0; i < 20 * repeat; ++i) {
        omp_set_lock(&lock);
        omp_unset_lock(&lock);
      }
      per = (now_ns() - begin) / (double)(20 * repeat);
      if (t < 64 && per < pair[t]) pair[t] = per;
      omp_destroy_lock(&lock);
    }
  }
  double workers = 0;
  for (int t = 1; t < threads && t < 64; ++t) workers += pair[t];
  printf("threads %d\nparallel_region_ns %.1f\nbarrier_ns %.1f\nlock_pair_master_ns %.1f\nlock_pair_worker_ns %.1f\n",
         threads, region, barrier, pair[0], threads > 1 ? workers / (threads - 1) : 0.0);
  MPI_Finalize();
  return 0;
}

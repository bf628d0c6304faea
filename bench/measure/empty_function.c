/* Cost of compiler instrumentation: a loop calling an empty function. Built
 * twice (with and without -finstrument-functions); under `orrery run` the
 * instrumented build records an Enter and a Leave per call.
 *   mpirun -np 1 bench_empty_function[_instrumented] [CALLS] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) void empty_function(void) { __asm__ volatile(""); }

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return 1e9 * (double)t.tv_sec + (double)t.tv_nsec;
}

int main(int argc, char** argv) {
  long calls = argc > 1 ? atol(argv[1]) : 200000;
  MPI_Init(&argc, &argv);
  for (long i = 0; i < calls / 10; ++i) empty_function(); /* warm up */
  double best = 1e300;
  for (int repeat = 0; repeat < 10; ++repeat) {
    double start = now_ns();
    for (long i = 0; i < calls; ++i) empty_function();
    double per_call = (now_ns() - start) / (double)calls;
    if (per_call < best) best = per_call;
  }
  MPI_Finalize();
  printf("empty_function: %ld calls, %.2f ns per call (best of 10)\n", calls, best);
  return 0;
}

/* The floor under any per-event cost: one timestamp. Prints the cost of
 * RDTSC and of clock_gettime(CLOCK_MONOTONIC) on this machine (both are slow
 * on some virtual machines). */
#include <stdio.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define HAVE_TSC 1
#endif

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return 1e9 * (double)t.tv_sec + (double)t.tv_nsec;
}

int main(void) {
  const int n = 5000000;
  volatile unsigned long long sink = 0;
  double tsc = 0.0;
#ifdef HAVE_TSC
  double start = now_ns();
  for (int i = 0; i < n; ++i) sink += __rdtsc();
  tsc = (now_ns() - start) / n;
#endif
  double start_clock = now_ns();
  struct timespec t;
  for (int i = 0; i < n; ++i) {
    clock_gettime(CLOCK_MONOTONIC, &t);
    sink += (unsigned long long)t.tv_nsec;
  }
  double clock = (now_ns() - start_clock) / n;
  printf("clock_cost: rdtsc %.1f ns, clock_gettime %.1f ns\n", tsc, clock);
  return 0;
}

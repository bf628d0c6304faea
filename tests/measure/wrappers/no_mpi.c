/* An instrumented program that never calls MPI_Init: with liborrery-measure
 * preloaded it must run as without it, write no file and keep its memory
 * bounded by the event buffer however many regions it enters. */
#include <stdio.h>
#include <stdlib.h>

static unsigned step(unsigned x) { return x * 3u + 1u; }

int main(int argc, char** argv) {
  const long calls = argc > 1 ? atol(argv[1]) : 1000;
  unsigned value = 0;
  for (long i = 0; i < calls; ++i) value += step((unsigned)i);
  printf("RESULT %ld calls value %u\n", calls, value);
  return 0;
}

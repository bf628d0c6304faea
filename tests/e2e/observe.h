/* What an end-to-end program observed itself: "key value" lines per rank in
 * OUTDIR/rank<r>.txt, read by run_scenario.py to compute the expected cube
 * values. Times are MPI_Wtime differences, i.e. the program's own clock. */
#ifndef ORRERY_E2E_OBSERVE_H
#define ORRERY_E2E_OBSERVE_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static FILE* observe_file;
static double observe_start; /* MPI_Wtime right after MPI_Init */

static void observe_open(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  observe_start = MPI_Wtime();
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char path[4096];
  snprintf(path, sizeof path, "%s/rank%d.txt", argv[1], rank);
  observe_file = fopen(path, "w");
  if (!observe_file) {
    perror(path);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

static void observe(const char* key, double value) {
  fprintf(observe_file, "%s %.9f\n", key, value);
}

/* Records "span", the time from MPI_Init's return to now; call it right
 * before MPI_Finalize. */
static void observe_close(void) {
  observe("span", MPI_Wtime() - observe_start);
  fclose(observe_file);
}

/* CLOCK_MONOTONIC in seconds: one clock for all ranks of a host. Times
 * compared across ranks must use it: Open MPI's MPI_Wtime counts from each
 * process's first call. */
static inline double monotonic_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void sleep_seconds(double seconds) {
  struct timespec ts;
  ts.tv_sec = (time_t)seconds;
  ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
  nanosleep(&ts, NULL);
}

#endif

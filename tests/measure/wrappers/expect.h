/* Test programs describe what the trace must show, from what they observed
 * themselves: expect("present MPI_RECV Sender=%d Tag=%d", ...) appends one line
 * to $ORRERY_TEST_EXPECT.<rank>, read by check_trace.py. */
#ifndef ORRERY_TEST_EXPECT_H
#define ORRERY_TEST_EXPECT_H

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static void expect(const char* format, ...) __attribute__((format(printf, 1, 2), unused));

static void expect(const char* format, ...) {
  const char* prefix = getenv("ORRERY_TEST_EXPECT");
  if (prefix == NULL) return;
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char path[4096];
  snprintf(path, sizeof path, "%s.%d", prefix, rank);
  FILE* file = fopen(path, "a");
  if (file == NULL) return;
  va_list args;
  va_start(args, format);
  vfprintf(file, format, args);
  va_end(args);
  fputc('\n', file);
  fclose(file);
}

#endif

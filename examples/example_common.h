/* Shared by the bundled examples: counting the MPI calls a program makes, so
 * that tests can compare them with the events in its trace, and small helpers
 * for options and timing. Header-only C; each example is one translation unit. */
#ifndef ORRERY_EXAMPLE_COMMON_H
#define ORRERY_EXAMPLE_COMMON_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* COUNTED(MPI_Send, buf, ...) calls MPI_Send(buf, ...) and counts it under
 * its name. Every MPI call of an example goes through it. */
#define COUNTED(function, ...) (example_count_call(#function), function(__VA_ARGS__))

enum { EXAMPLE_MAX_KINDS = 48 };

/** Calls made per MPI function, plus the messages and collectives they moved. */
struct example_counts {
  const char* names[EXAMPLE_MAX_KINDS];
  long calls[EXAMPLE_MAX_KINDS];
  int kinds;
  long messages_sent;     /* point-to-point messages to a real peer (not PROC_NULL) */
  long messages_received;
  long collectives;       /* collective operations (barrier included) */
};

static struct example_counts example_counts_;

static void example_count_call(const char* name) {
  for (int i = 0; i < example_counts_.kinds; ++i) {
    if (strcmp(example_counts_.names[i], name) == 0) {
      ++example_counts_.calls[i];
      return;
    }
  }
  if (example_counts_.kinds < EXAMPLE_MAX_KINDS) {
    example_counts_.names[example_counts_.kinds] = name;
    example_counts_.calls[example_counts_.kinds++] = 1;
  }
}

/* Writes PREFIX.<rank>.json: {"rank":..,"calls":{"MPI_X":n,..},...}.
 * Called after MPI_Finalize, so it makes no MPI call itself. */
static int example_write_counts(const char* prefix, int rank, int size) {
  char path[4096];
  snprintf(path, sizeof path, "%s.%d.json", prefix, rank);
  FILE* out = fopen(path, "w");
  if (!out) {
    fprintf(stderr, "cannot write call counts to %s\n", path);
    return 1;
  }
  fprintf(out, "{\"rank\": %d, \"size\": %d, \"calls\": {", rank, size);
  for (int i = 0; i < example_counts_.kinds; ++i) {
    fprintf(out, "%s\"%s\": %ld", i ? ", " : "", example_counts_.names[i], example_counts_.calls[i]);
  }
  fprintf(out, "}, \"messages_sent\": %ld, \"messages_received\": %ld, \"collectives\": %ld}\n",
          example_counts_.messages_sent, example_counts_.messages_received,
          example_counts_.collectives);
  return fclose(out) == 0 ? 0 : 1;
}

static double example_seconds(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

/* Value of "--name V" at argv[*i]; advances *i. Exits with 2 if V is missing. */
static const char* example_option_value(int argc, char** argv, int* i) {
  if (*i + 1 >= argc) {
    fprintf(stderr, "%s: option %s needs a value\n", argv[0], argv[*i]);
    exit(2);
  }
  return argv[++*i];
}

#endif

/* Communicators an incomplete run must unify by member list and creation
 * order (4 ranks): an even/odd split, two dups of it (the Allreduce on the
 * second, the Barrier on the first), a dup of MPI_COMM_SELF on rank 1 only,
 * and a message on the second dup. Known waits: rank 0 sleeps before each
 * Allreduce (rank 2 waits), rank 2 before the split's Barrier.
 *   comm_mix finalize [OUTDIR]   ends with MPI_Finalize (a complete experiment)
 *   comm_mix exit [OUTDIR]       ends with exit(0) without it (an incomplete one)
 * With OUTDIR every rank writes the CLOCK_MONOTONIC time (one clock for all
 * ranks of a host; Open MPI's MPI_Wtime counts from each process's first
 * call) at which it entered and left each call (OUTDIR/rank<r>.txt, "key value" lines): incomplete_vs_complete.py
 * computes from them the waits each run must show. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

static FILE* seen; /* OUTDIR/rank<r>.txt, or NULL */

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Records the enter and leave times of one call: "<key>_enter", "<key>_leave". */
static void saw(const char* key, double enter, double leave) {
  if (seen) fprintf(seen, "%s_enter %.9f\n%s_leave %.9f\n", key, enter, key, leave);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int finalize = argc > 1 && strcmp(argv[1], "finalize") == 0;
  int rank, value = 1, sum = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc > 2) {
    char path[4096];
    snprintf(path, sizeof path, "%s/rank%d.txt", argv[2], rank);
    seen = fopen(path, "w");
    if (!seen) MPI_Abort(MPI_COMM_WORLD, 1);
  }
  char key[32];
  double t;
  MPI_Comm half, dup1, dup2, self;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  if (rank == 1) {
    MPI_Comm_dup(MPI_COMM_SELF, &self);
    MPI_Barrier(self);
  }
  MPI_Comm_dup(half, &dup1);
  MPI_Comm_dup(half, &dup2);
  for (int i = 0; i < 3; ++i) {
    if (rank == 0) sleep_ms(100);
    t = now_s();
    MPI_Allreduce(&value, &sum, 1, MPI_INT, MPI_SUM, dup2);
    snprintf(key, sizeof key, "allreduce%d", i);
    saw(key, t, now_s());
    t = now_s();
    MPI_Barrier(dup1);
    snprintf(key, sizeof key, "barrier%d", i);
    saw(key, t, now_s());
  }
  if (rank == 2) sleep_ms(200);
  t = now_s();
  MPI_Barrier(half);
  saw("half", t, now_s());
  int half_rank;
  MPI_Comm_rank(half, &half_rank);
  if (half_rank == 1) {
    sleep_ms(50);
    t = now_s();
    MPI_Send(&value, 1, MPI_INT, 0, 5, dup2);
    saw("send", t, now_s());
  } else if (half_rank == 0) {
    t = now_s();
    MPI_Recv(&sum, 1, MPI_INT, 1, 5, dup2, MPI_STATUS_IGNORE);
    saw("recv", t, now_s());
  }
  t = now_s();
  MPI_Barrier(MPI_COMM_WORLD);
  saw("world", t, now_s());
  if (seen) fclose(seen);
  if (!finalize) exit(0);
  MPI_Finalize();
  return 0;
}

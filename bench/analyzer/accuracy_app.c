/* Wait-state accuracy: a 4-rank MPI program with injected waits of every
 * kind, repeated with different delays. Each rank records the node's
 * monotonic clock right before and right after every call it makes
 * (OUTDIR/rank<r>.txt: "scenario enter_ns exit_ns"), so run_accuracy.py can
 * compute each wait state from what the program itself observed (docs/design.md §4
 * formulas) and compare it with orrery-analyze's report.
 *
 *   late_sender    rank 1 sleeps, then MPI_Send to rank 0 (in MPI_Recv)
 *   late_receiver  rank 2 MPI_Ssend to rank 3, which sleeps, then MPI_Recv
 *   barrier        rank k sleeps k * d / 3, then MPI_Barrier
 *   nxn            the same with MPI_Allreduce
 *   bcast          root 0 sleeps, then MPI_Bcast (the others wait)
 *   reduce         ranks k > 0 sleep k * d / 3, root 0 enters MPI_Reduce at once
 * Scenarios are separated by MPI_Allgather, whose waits are not examined. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long long now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void sleep_ms(double ms) {
  struct timespec ts;
  ts.tv_sec = (time_t)(ms / 1000.0);
  ts.tv_nsec = (long)((ms - (double)ts.tv_sec * 1000.0) * 1e6);
  nanosleep(&ts, NULL);
}

static FILE* out;

static void record(const char* scenario, long long enter, long long exit) {
  fprintf(out, "%s %lld %lld\n", scenario, enter, exit);
}

static void separate(void) {
  int one = 1, all[64];
  MPI_Allgather(&one, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 2 || size != 4) {
    if (rank == 0) fprintf(stderr, "usage: mpirun -np 4 %s OUTDIR [REPEATS]\n", argv[0]);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/rank%d.txt", argv[1], rank);
  out = fopen(path, "w");
  if (!out) {
    perror(path);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  const int repeats = argc > 2 ? atoi(argv[2]) : 5;
  int value = 1, result = 0;
  long long t0, t1;
  for (int i = 0; i < repeats; ++i) {
    const double d = 30.0 + 15.0 * i; /* ms */

    separate();
    if (rank == 0) {
      t0 = now_ns();
      MPI_Recv(&value, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      t1 = now_ns();
      record("late_sender", t0, t1);
    } else if (rank == 1) {
      sleep_ms(d);
      t0 = now_ns();
      MPI_Send(&value, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
      t1 = now_ns();
      record("late_sender", t0, t1);
    }

    separate();
    if (rank == 2) {
      t0 = now_ns();
      MPI_Ssend(&value, 1, MPI_INT, 3, 2, MPI_COMM_WORLD);
      t1 = now_ns();
      record("late_receiver", t0, t1);
    } else if (rank == 3) {
      sleep_ms(d);
      t0 = now_ns();
      MPI_Recv(&value, 1, MPI_INT, 2, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      t1 = now_ns();
      record("late_receiver", t0, t1);
    }

    separate();
    sleep_ms(d * rank / 3.0);
    t0 = now_ns();
    MPI_Barrier(MPI_COMM_WORLD);
    t1 = now_ns();
    record("barrier", t0, t1);

    separate();
    sleep_ms(d * rank / 3.0);
    t0 = now_ns();
    MPI_Allreduce(&value, &result, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    t1 = now_ns();
    record("nxn", t0, t1);

    separate();
    if (rank == 0) sleep_ms(d);
    t0 = now_ns();
    MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
    t1 = now_ns();
    record("bcast", t0, t1);

    separate();
    if (rank > 0) sleep_ms(d * rank / 3.0);
    t0 = now_ns();
    MPI_Reduce(&value, &result, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    t1 = now_ns();
    record("reduce", t0, t1);
  }
  fclose(out);
  MPI_Finalize();
  return 0;
}

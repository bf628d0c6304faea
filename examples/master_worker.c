/* master_worker: rank 0 hands out tasks of uneven size, one at a time, to
 * whichever worker reports back first (MPI_Recv from MPI_ANY_SOURCE). Workers
 * with long tasks keep the others waiting for work at the master.
 *
 *   mpirun -np 4 master_worker [--tasks N] [--work W] [--count-calls PREFIX] [--quiet]
 */
#include "example_common.h"

enum { TAG_TASK = 1, TAG_STOP = 2, TAG_RESULT = 3 };

struct task {
  int id;
  int units; /* amount of work, uneven from task to task */
};

/* Burns `units` * `work` iterations of arithmetic and returns a checksum. */
static double do_task(struct task t, int work) {
  double x = 1.0 + t.id;
  long steps = (long)t.units * work;
  for (long s = 0; s < steps; ++s) x = x * 0.999999 + 1e-6 * (double)(s % 7);
  return x;
}

static int task_units(int id) { return 1 + (id * 37) % 11; }

static void send_task(int worker, int* next, int tasks, int* active) {
  struct task t = {*next, *next < tasks ? task_units(*next) : 0};
  if (*next < tasks) {
    COUNTED(MPI_Send, &t, 2, MPI_INT, worker, TAG_TASK, MPI_COMM_WORLD);
    ++*next;
    ++*active;
  } else {
    COUNTED(MPI_Send, &t, 2, MPI_INT, worker, TAG_STOP, MPI_COMM_WORLD);
  }
  ++example_counts_.messages_sent;
}

static double run_master(int size, int tasks) {
  int next = 0, active = 0;
  double checksum = 0.0;
  for (int worker = 1; worker < size; ++worker) send_task(worker, &next, tasks, &active);
  while (active > 0) {
    double result;
    MPI_Status status;
    COUNTED(MPI_Recv, &result, 1, MPI_DOUBLE, MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, &status);
    ++example_counts_.messages_received;
    --active;
    checksum += result;
    send_task(status.MPI_SOURCE, &next, tasks, &active);
  }
  return checksum;
}

static int run_worker(int work) {
  int done = 0;
  for (;;) {
    struct task t;
    MPI_Status status;
    COUNTED(MPI_Recv, &t, 2, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
    ++example_counts_.messages_received;
    if (status.MPI_TAG == TAG_STOP) return done;
    double result = do_task(t, work);
    COUNTED(MPI_Send, &result, 1, MPI_DOUBLE, 0, TAG_RESULT, MPI_COMM_WORLD);
    ++example_counts_.messages_sent;
    ++done;
  }
}

int main(int argc, char** argv) {
  int tasks = 60, work = 100000, quiet = 0;
  const char* count_calls = NULL;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--tasks") == 0) tasks = atoi(example_option_value(argc, argv, &i));
    else if (strcmp(argv[i], "--work") == 0) work = atoi(example_option_value(argc, argv, &i));
    else if (strcmp(argv[i], "--count-calls") == 0) count_calls = example_option_value(argc, argv, &i);
    else if (strcmp(argv[i], "--quiet") == 0) quiet = 1;
    else {
      fprintf(stderr, "usage: %s [--tasks N] [--work W] [--count-calls PREFIX] [--quiet]\n", argv[0]);
      return 2;
    }
  }
  int rank, size;
  COUNTED(MPI_Init, &argc, &argv);
  double start = example_seconds();
  COUNTED(MPI_Comm_size, MPI_COMM_WORLD, &size);
  COUNTED(MPI_Comm_rank, MPI_COMM_WORLD, &rank);
  if (size < 2) {
    if (rank == 0) fprintf(stderr, "master_worker: needs at least 2 ranks\n");
    COUNTED(MPI_Finalize);
    return 2;
  }
  COUNTED(MPI_Bcast, &tasks, 1, MPI_INT, 0, MPI_COMM_WORLD);
  ++example_counts_.collectives;

  double checksum = 0.0;
  int done = rank == 0 ? 0 : run_worker(work);
  if (rank == 0) checksum = run_master(size, tasks);
  int total_done = 0;
  COUNTED(MPI_Reduce, &done, &total_done, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  ++example_counts_.collectives;
  COUNTED(MPI_Barrier, MPI_COMM_WORLD);
  ++example_counts_.collectives;
  double elapsed = example_seconds() - start;
  COUNTED(MPI_Finalize);

  int status = 0;
  if (rank == 0) {
    if (total_done != tasks) {
      fprintf(stderr, "master_worker: %d of %d tasks done\n", total_done, tasks);
      status = 1;
    }
    if (!quiet) {
      printf("master_worker: %d ranks, %d tasks, checksum %.6f, %.3f s\n", size, tasks, checksum,
             elapsed);
    }
  }
  if (count_calls && example_write_counts(count_calls, rank, size) != 0) status = 1;
  return status;
}

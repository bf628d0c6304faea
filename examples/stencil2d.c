/* stencil2d: a 2-D Jacobi stencil with halo exchange on a Cartesian process
 * grid, with one deliberately slow rank. The slow rank repeats its sweep, so
 * its neighbours wait for its halos (Late Sender) and everybody waits for it
 * in the residual Allreduce (Wait at NxN) — the wait states Orrery finds.
 *
 *   mpirun -np 4 stencil2d [--size N] [--iterations I] [--imbalance F]
 *                          [--slow-rank R] [--delay-us D] [--residual-every K]
 *                          [--count-calls PREFIX] [--quiet]
 * --delay-us makes the slow rank also sleep D microseconds per iteration: a
 * delay that does not compete for cores, so the imbalance stays clear when
 * more ranks than cores share the machine. */
#define _POSIX_C_SOURCE 200809L
#include "example_common.h"

struct stencil_options {
  int size;           /* global grid is size x size interior points */
  int iterations;
  int imbalance;      /* extra sweeps on the slow rank per iteration */
  int slow_rank;      /* -1: the last rank */
  int delay_us;       /* extra sleep of the slow rank per iteration */
  int residual_every; /* Allreduce of the residual every K iterations */
  const char* count_calls;
  int quiet;
};

struct block {
  int nx, ny;         /* interior rows and columns of this rank */
  double* u;
  double* next;
};

#define AT(b, array, i, j) ((b)->array[(size_t)(i) * (size_t)((b)->ny + 2) + (size_t)(j)])

static void usage(const char* program) {
  fprintf(stderr,
          "usage: %s [--size N] [--iterations I] [--imbalance F] [--slow-rank R] [--delay-us D]\n"
          "          [--residual-every K] [--count-calls PREFIX] [--quiet]\n", program);
}

static struct stencil_options parse_options(int argc, char** argv) {
  struct stencil_options o = {512, 200, 4, -1, 0, 10, NULL, 0};
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--size") == 0) o.size = atoi(example_option_value(argc, argv, &i));
    else if (strcmp(argv[i], "--iterations") == 0) o.iterations = atoi(example_option_value(argc, argv, &i));
    else if (strcmp(argv[i], "--imbalance") == 0) o.imbalance = atoi(example_option_value(argc, argv, &i));
    else if (strcmp(argv[i], "--slow-rank") == 0) o.slow_rank = atoi(example_option_value(argc, argv, &i));
    else if (strcmp(argv[i], "--delay-us") == 0) o.delay_us = atoi(example_option_value(argc, argv, &i));
    else if (strcmp(argv[i], "--residual-every") == 0) o.residual_every = atoi(example_option_value(argc, argv, &i));
    else if (strcmp(argv[i], "--count-calls") == 0) o.count_calls = example_option_value(argc, argv, &i);
    else if (strcmp(argv[i], "--quiet") == 0) o.quiet = 1;
    else {
      usage(argv[0]);
      exit(2);
    }
  }
  if (o.size < 4 || o.iterations < 1 || o.imbalance < 0 || o.delay_us < 0 || o.residual_every < 1) {
    usage(argv[0]);
    exit(2);
  }
  return o;
}

/* Rows (or columns) of a dimension of `global` points owned by coordinate c of d. */
static int share(int global, int d, int c) { return global / d + (c < global % d ? 1 : 0); }

static void init_block(struct block* b, int top_edge) {
  size_t cells = (size_t)(b->nx + 2) * (size_t)(b->ny + 2);
  b->u = calloc(cells, sizeof(double));
  b->next = calloc(cells, sizeof(double));
  if (!b->u || !b->next) {
    fprintf(stderr, "stencil2d: out of memory\n");
    COUNTED(MPI_Abort, MPI_COMM_WORLD, 1);
  }
  if (top_edge) {
    for (int j = 0; j < b->ny + 2; ++j) AT(b, u, 0, j) = AT(b, next, 0, j) = 1.0;
  }
}

/* Posts all halo receives and sends, then completes them with one Waitall.
 * Rows are contiguous; columns use the strided `column` type. */
static void exchange_halos(struct block* b, MPI_Comm cart, MPI_Datatype column, const int peers[4]) {
  MPI_Request requests[8];
  int nx = b->nx, ny = b->ny;
  /* peers: up, down, left, right */
  COUNTED(MPI_Irecv, &AT(b, u, 0, 1), ny, MPI_DOUBLE, peers[0], 0, cart, &requests[0]);
  COUNTED(MPI_Irecv, &AT(b, u, nx + 1, 1), ny, MPI_DOUBLE, peers[1], 1, cart, &requests[1]);
  COUNTED(MPI_Irecv, &AT(b, u, 1, 0), 1, column, peers[2], 2, cart, &requests[2]);
  COUNTED(MPI_Irecv, &AT(b, u, 1, ny + 1), 1, column, peers[3], 3, cart, &requests[3]);
  COUNTED(MPI_Isend, &AT(b, u, 1, 1), ny, MPI_DOUBLE, peers[0], 1, cart, &requests[4]);
  COUNTED(MPI_Isend, &AT(b, u, nx, 1), ny, MPI_DOUBLE, peers[1], 0, cart, &requests[5]);
  COUNTED(MPI_Isend, &AT(b, u, 1, 1), 1, column, peers[2], 3, cart, &requests[6]);
  COUNTED(MPI_Isend, &AT(b, u, 1, ny), 1, column, peers[3], 2, cart, &requests[7]);
  COUNTED(MPI_Waitall, 8, requests, MPI_STATUSES_IGNORE);
  for (int p = 0; p < 4; ++p) {
    if (peers[p] != MPI_PROC_NULL) {
      ++example_counts_.messages_sent;
      ++example_counts_.messages_received;
    }
  }
}

/* One Jacobi sweep into `next`; returns the squared change. */
static double relax(struct block* b) {
  double change = 0.0;
  for (int i = 1; i <= b->nx; ++i) {
    for (int j = 1; j <= b->ny; ++j) {
      double value = 0.25 * (AT(b, u, i - 1, j) + AT(b, u, i + 1, j) + AT(b, u, i, j - 1) +
                             AT(b, u, i, j + 1));
      double delta = value - AT(b, u, i, j);
      AT(b, next, i, j) = value;
      change += delta * delta;
    }
  }
  return change;
}

static void swap(struct block* b) {
  double* t = b->u;
  b->u = b->next;
  b->next = t;
}

int main(int argc, char** argv) {
  struct stencil_options o = parse_options(argc, argv);
  int rank, size, dims[2] = {0, 0}, periods[2] = {0, 0}, coords[2], peers[4];
  MPI_Comm cart;
  MPI_Datatype column;

  COUNTED(MPI_Init, &argc, &argv);
  double start = example_seconds();
  COUNTED(MPI_Comm_size, MPI_COMM_WORLD, &size);
  COUNTED(MPI_Comm_rank, MPI_COMM_WORLD, &rank);
  int slow = o.slow_rank < 0 ? size - 1 : o.slow_rank;
  COUNTED(MPI_Dims_create, size, 2, dims);
  COUNTED(MPI_Cart_create, MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
  COUNTED(MPI_Cart_coords, cart, rank, 2, coords);
  COUNTED(MPI_Cart_shift, cart, 0, 1, &peers[0], &peers[1]);
  COUNTED(MPI_Cart_shift, cart, 1, 1, &peers[2], &peers[3]);

  struct block b = {share(o.size, dims[0], coords[0]), share(o.size, dims[1], coords[1]), NULL, NULL};
  init_block(&b, coords[0] == 0);
  COUNTED(MPI_Type_vector, b.nx, 1, b.ny + 2, MPI_DOUBLE, &column);
  COUNTED(MPI_Type_commit, &column);

  double residual = 0.0;
  for (int it = 0; it < o.iterations; ++it) {
    exchange_halos(&b, cart, column, peers);
    double change = relax(&b);
    for (int extra = 0; rank == slow && extra < o.imbalance; ++extra) change = relax(&b);
    if (rank == slow && o.delay_us > 0) {
      struct timespec pause = {o.delay_us / 1000000, (long)(o.delay_us % 1000000) * 1000L};
      nanosleep(&pause, NULL);
    }
    if ((it + 1) % o.residual_every == 0) {
      COUNTED(MPI_Allreduce, &change, &residual, 1, MPI_DOUBLE, MPI_SUM, cart);
      ++example_counts_.collectives;
    }
    swap(&b);
  }

  double local_sum = 0.0, total = 0.0;
  for (int i = 1; i <= b.nx; ++i) {
    for (int j = 1; j <= b.ny; ++j) local_sum += AT(&b, u, i, j);
  }
  COUNTED(MPI_Reduce, &local_sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, cart);
  ++example_counts_.collectives;
  COUNTED(MPI_Type_free, &column);
  COUNTED(MPI_Comm_free, &cart);
  double elapsed = example_seconds() - start;
  COUNTED(MPI_Finalize);

  if (rank == 0 && !o.quiet) {
    printf("stencil2d: %d ranks (%dx%d), %dx%d points, %d iterations, slow rank %d (+%d sweeps, "
           "+%d us sleep), residual %.3e, sum %.6f, %.3f s\n",
           size, dims[0], dims[1], o.size, o.size, o.iterations, slow, o.imbalance, o.delay_us,
           residual, total, elapsed);
  }
  free(b.u);
  free(b.next);
  if (o.count_calls) return example_write_counts(o.count_calls, rank, size);
  return 0;
}

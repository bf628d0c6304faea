/* Small-message ping-pong between ranks 0 and 1: time per round trip, from
 * which the cost added per MPI call under measurement follows (each rank
 * makes one MPI_Send and one MPI_Recv per round trip).
 * The best of REPEATS short windows is reported: on a shared machine a
 * window without interference says more than an average over the noise.
 *   mpirun -np 2 bench_pingpong [ROUND_TRIPS] [BYTES] [REPEATS] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return 1e9 * (double)t.tv_sec + (double)t.tv_nsec;
}

static void ping_pong(int rank, long round_trips, char* buffer, int bytes) {
  for (long i = 0; i < round_trips; ++i) {
    if (rank == 0) {
      MPI_Send(buffer, bytes, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(buffer, bytes, MPI_CHAR, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      MPI_Recv(buffer, bytes, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buffer, bytes, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
    }
  }
}

int main(int argc, char** argv) {
  long round_trips = argc > 1 ? atol(argv[1]) : 5000;
  int bytes = argc > 2 ? atoi(argv[2]) : 8;
  int repeats = argc > 3 ? atoi(argv[3]) : 10;
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char* buffer = calloc((size_t)bytes + 1, 1);
  ping_pong(rank, round_trips / 10, buffer, bytes); /* warm up */
  double best = 1e300;
  for (int repeat = 0; repeat < repeats; ++repeat) {
    MPI_Barrier(MPI_COMM_WORLD);
    double start = now_ns();
    ping_pong(rank, round_trips, buffer, bytes);
    double per_trip = (now_ns() - start) / (double)round_trips;
    if (per_trip < best) best = per_trip;
  }
  MPI_Finalize();
  if (rank == 0) {
    printf("pingpong: %ld round trips of %d bytes, %.1f ns per round trip (best of %d)\n",
           round_trips, bytes, best, repeats);
  }
  free(buffer);
  return 0;
}

/* Small-message ping-pong between ranks 0 and 1: time per round trip, from
 * which the cost added per MPI call under measurement follows (each rank
 * makes one MPI_Send and one MPI_Recv per round trip).
 * The best of REPEATS short windows is reported: on a shared machine a
 * window without interference says more than an average over the noise.
 * With COMMS 2 the round trips alternate between MPI_COMM_WORLD and a copy
 * of it, so that every call looks up another communicator than the one
 * before (the measurement's one-entry cache misses each time).
 * With MODE 1 each round trip is MPI_Irecv + MPI_Isend + MPI_Waitall on both
 * ranks (the measurement's request table), with MODE 2 the same after
 * MPI_Init_thread with MPI_THREAD_MULTIPLE (the table then takes a mutex).
 *   mpirun -np 2 bench_pingpong [ROUND_TRIPS] [BYTES] [REPEATS] [COMMS] [MODE] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return 1e9 * (double)t.tv_sec + (double)t.tv_nsec;
}

static int nonblocking = 0;

static void ping_pong(int rank, long round_trips, char* buffer, int bytes, const MPI_Comm* comms, int ncomms) {
  for (long i = 0; i < round_trips; ++i) {
    const MPI_Comm comm = comms[i % ncomms];
    if (nonblocking && rank < 2) {
      MPI_Request requests[2];
      MPI_Irecv(buffer + bytes / 2, bytes - bytes / 2, MPI_CHAR, 1 - rank, 0, comm, &requests[0]);
      MPI_Isend(buffer, bytes / 2, MPI_CHAR, 1 - rank, 0, comm, &requests[1]);
      MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
    } else if (rank == 0) {
      MPI_Send(buffer, bytes, MPI_CHAR, 1, 0, comm);
      MPI_Recv(buffer, bytes, MPI_CHAR, 1, 0, comm, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      MPI_Recv(buffer, bytes, MPI_CHAR, 0, 0, comm, MPI_STATUS_IGNORE);
      MPI_Send(buffer, bytes, MPI_CHAR, 0, 0, comm);
    }
  }
}

int main(int argc, char** argv) {
  long round_trips = argc > 1 ? atol(argv[1]) : 5000;
  int bytes = argc > 2 ? atoi(argv[2]) : 8;
  int repeats = argc > 3 ? atoi(argv[3]) : 10;
  int ncomms = argc > 4 && atoi(argv[4]) == 2 ? 2 : 1;
  int mode = argc > 5 ? atoi(argv[5]) : 0;
  int rank, provided;
  nonblocking = mode != 0;
  if (mode == 2) {
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  } else {
    MPI_Init(&argc, &argv);
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm comms[2] = {MPI_COMM_WORLD, MPI_COMM_WORLD};
  if (ncomms == 2) MPI_Comm_dup(MPI_COMM_WORLD, &comms[1]);
  char* buffer = calloc((size_t)bytes + 1, 1);
  ping_pong(rank, round_trips / 10, buffer, bytes, comms, ncomms); /* warm up */
  double best = 1e300;
  for (int repeat = 0; repeat < repeats; ++repeat) {
    MPI_Barrier(MPI_COMM_WORLD);
    double start = now_ns();
    ping_pong(rank, round_trips, buffer, bytes, comms, ncomms);
    double per_trip = (now_ns() - start) / (double)round_trips;
    if (per_trip < best) best = per_trip;
  }
  if (ncomms == 2) MPI_Comm_free(&comms[1]);
  MPI_Finalize();
  if (rank == 0) {
    printf("pingpong: %ld round trips of %d bytes on %d communicator(s)%s, %.1f ns per round trip (best of %d)\n",
           round_trips, bytes, ncomms,
           mode == 2 ? ", non-blocking, MPI_THREAD_MULTIPLE" : mode == 1 ? ", non-blocking" : "", best, repeats);
  }
  free(buffer);
  return 0;
}

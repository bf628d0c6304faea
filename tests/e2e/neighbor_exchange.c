/* A neighbour exchange of large messages on a ring (MPI_Dist_graph_create_
 * adjacent, 4 ranks): rank 2 arrives late. Its in-neighbours 1 and 3 wait
 * for it; rank 0 (no neighbour of rank 2) gets its data from 1 and 3 as soon
 * as they arrived and leaves: the transfer in its call is no waiting. Every
 * rank reads CLOCK_MONOTONIC (one clock on one host) around the call.
 * Expected: wait_at_neighbor of rank r ~ min(latest enter of r's
 * in-neighbours, exit(r)) - enter(r). */
#include <stdlib.h>

#include "observe.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  observe_open(argc, argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int neighbors[2] = {(rank + size - 1) % size, (rank + 1) % size};
  const int weights[2] = {1, 1}; /* MPI_UNWEIGHTED trips GCC's -Wstringop-overread */
  MPI_Comm ring;
  MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, neighbors, weights, 2, neighbors, weights,
                                 MPI_INFO_NULL, 0, &ring);
  const int count = 2 * 1024 * 1024; /* 8 MB to each neighbour */
  int* out = calloc(2 * (size_t)count, sizeof(int));
  int* in = calloc(2 * (size_t)count, sizeof(int));
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 2) sleep_seconds(0.3);
  const double enter = monotonic_seconds();
  MPI_Neighbor_alltoall(out, count, MPI_INT, in, count, MPI_INT, ring);
  const double leave = monotonic_seconds();
  observe("nb_enter", enter);
  observe("nb_exit", leave);
  observe("nb_call", leave - enter);
  free(out);
  free(in);
  MPI_Comm_free(&ring);
  observe_close();
  MPI_Finalize();
  return 0;
}

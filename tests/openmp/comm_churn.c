/* Communicators created, used and freed on every OpenMP thread at once,
 * measured by tests/openmp/run_comm_churn.py (2 ranks, 4 threads each):
 * each thread duplicates MPI_COMM_WORLD once (in turn: creations on one
 * parent are ordered alike on every rank), then ROUNDS times, concurrently
 * with the other threads, duplicates its own communicator, calls
 * MPI_Allreduce on the copy, exchanges a message with the same thread of the
 * other rank on it (MPI_Irecv, MPI_Send, MPI_Wait) and frees it. The MPI
 * thread takes part as thread 0. */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "thread_multiple.h"

enum { kThreads = 4, kRounds = 40 };

int main(int argc, char** argv) {
  init_thread_multiple(&argc, &argv, "comm_churn");
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int failures = 0;
#pragma omp parallel num_threads(kThreads) reduction(+ : failures)
  {
    const int t = omp_get_thread_num();
    MPI_Comm own = MPI_COMM_NULL;
    for (int k = 0; k < omp_get_num_threads(); ++k) {
      if (t == k) MPI_Comm_dup(MPI_COMM_WORLD, &own);
#pragma omp barrier
    }
    for (int round = 0; round < kRounds; ++round) {
      MPI_Comm copy;
      MPI_Comm_dup(own, &copy);
      int value = rank + round, sum = 0, received = -1;
      MPI_Allreduce(&value, &sum, 1, MPI_INT, MPI_SUM, copy);
      if (sum != size * (size - 1) / 2 + size * round) ++failures;
      const int peer = (rank + 1) % size;
      MPI_Request request;
      MPI_Irecv(&received, 1, MPI_INT, (rank + size - 1) % size, t, copy, &request);
      MPI_Send(&value, 1, MPI_INT, peer, t, copy);
      MPI_Wait(&request, MPI_STATUS_IGNORE);
      MPI_Comm_free(&copy);
    }
    MPI_Comm_free(&own);
  }
  if (failures != 0) {
    fprintf(stderr, "comm_churn: %d wrong sums\n", failures);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (rank == 0) printf("comm_churn: %d threads x %d rounds per rank\n", kThreads, kRounds);
  MPI_Finalize();
  return 0;
}

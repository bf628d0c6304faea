/* A program whose trace explodes because of one tiny, very frequent function:
 * `tiny` is called CALLS times per rank between a few MPI calls. Built with
 * -finstrument-functions, so every call of `tiny` is a compiler region visit.
 * `work` calls MPI, `main` is the root: neither may be filtered. */
#include <mpi.h>
#include <stdio.h>

enum { kRounds = 4, kCallsPerRound = 25000 };

__attribute__((noinline)) static double tiny(int i) { return (double)(i % 7) * 0.5; }

__attribute__((noinline)) static double work(int rank) {
  double sum = 0.0;
  for (int i = 0; i < kCallsPerRound; ++i) sum += tiny(i + rank);
  double total = 0.0;
  MPI_Allreduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return total;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double total = 0.0;
  for (int round = 0; round < kRounds; ++round) total += work(rank);
  if (rank == 0) printf("tiny calls per rank: %d\n", kRounds * kCallsPerRound);
  MPI_Finalize();
  return total > 0.0 ? 0 : 1;
}

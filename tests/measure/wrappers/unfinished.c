/* Ranks that never call MPI_Finalize: after a ring exchange every rank either
 * calls exit(), returns from main, or is terminated by SIGTERM ($UNFINISHED_MODE). The
 * events up to that point must reach EXP/incomplete/rank-<r>/. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "expect.h"

int main(int argc, char** argv) {
  const char* mode = getenv("UNFINISHED_MODE") != NULL ? getenv("UNFINISHED_MODE") : "exit";
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int rounds = 3 + rank;  // different per rank: the trace must be this rank's own
  const int right = (rank + 1) % size;
  const int left = (rank + size - 1) % size;
  int sent = 0;
  int received = 0;
  for (int i = 0; i < 3 + size; ++i) {
    int value = rank * 100 + i;
    int got = -1;
    /* Everyone exchanges max(rounds) times so that the ring always matches; a rank
     * sends only in its first `rounds` rounds and tags the others as padding. */
    MPI_Sendrecv(&value, 1, MPI_INT, right, i < rounds ? 1 : 2, &got, 1, MPI_INT, left, MPI_ANY_TAG,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    sent += i < rounds;
    (void)got;
    ++received;
  }
  expect("%d MPI_SEND Tag=1", sent);
  expect("%d MPI_RECV", received);
  expect("1 ENTER Region=MPI_Barrier");
  MPI_Barrier(MPI_COMM_WORLD);
  printf("RESULT rank %d exchanged %d\n", rank, received);
  fflush(stdout);
  if (strcmp(mode, "sigterm") == 0) raise(SIGTERM);
  if (strcmp(mode, "return") == 0) return 0;
  exit(0);
}

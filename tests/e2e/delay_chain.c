/* A chain of Late Senders with one root cause: the last rank sleeps DELAY
 * seconds, then sends to the rank below; every other rank receives from the
 * rank above, then sends to the rank below. Only the last rank is late by
 * itself; the others pass its delay on (delay_chain.py checks the delay
 * costs and wait-state classes against these clocks).
 * Usage: e2e_delay_chain OUTDIR DELAY. Observes per rank CLOCK_MONOTONIC at
 * entering and leaving MPI_Recv ("recv_enter", "recv_exit") and at entering
 * MPI_Send ("send_enter"). */
#include "observe.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  observe_open(argc, argv);
  if (argc < 3) {
    fprintf(stderr, "usage: %s OUTDIR DELAY\n", argv[0]);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int rank, size, value = 42;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == size - 1) {
    sleep_seconds(atof(argv[2]));
  } else {
    observe("recv_enter", monotonic_seconds());
    MPI_Recv(&value, 1, MPI_INT, rank + 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    observe("recv_exit", monotonic_seconds());
  }
  if (rank > 0) {
    observe("send_enter", monotonic_seconds());
    MPI_Send(&value, 1, MPI_INT, rank - 1, 3, MPI_COMM_WORLD);
  }
  observe_close();
  MPI_Finalize();
  return 0;
}

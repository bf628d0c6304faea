/* Collectives: blocking (with MPI_IN_PLACE), non-blocking, neighborhood. The
 * program states the bytes each rank supplies/receives per docs/measure.md. */
#include "expect.h"

static int rank, size;

#define N 4

static void blocking(void) {
  int in[64] = {0}, out[64] = {0}, counts[16], displs[16];
  double sum = rank, total = 0;
  for (int i = 0; i < size; ++i) {
    counts[i] = 2;
    displs[i] = 2 * i;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  expect("1 MPI_COLLECTIVE_END Operation=BARRIER Sent=0 Received=0");
  MPI_Bcast(out, N, MPI_INT, 1, MPI_COMM_WORLD);
  expect("1 MPI_COLLECTIVE_END Operation=BCAST Root=1 Sent=%d Received=%d", rank == 1 ? 16 : 0, rank == 1 ? 0 : 16);
  MPI_Gather(out, 2, MPI_INT, in, 2, MPI_INT, 0, MPI_COMM_WORLD);
  expect("1 MPI_COLLECTIVE_END Operation=GATHER Root=0 Sent=8 Received=%d", rank == 0 ? 8 * size : 0);
  MPI_Gatherv(out, 2, MPI_INT, in, counts, displs, MPI_INT, 0, MPI_COMM_WORLD);
  expect("1 MPI_COLLECTIVE_END Operation=GATHERV Root=0 Sent=8 Received=%d", rank == 0 ? 8 * size : 0);
  MPI_Scatter(out, 2, MPI_INT, in, 2, MPI_INT, 2, MPI_COMM_WORLD);
  expect("1 MPI_COLLECTIVE_END Operation=SCATTER Root=2 Sent=%d Received=8", rank == 2 ? 8 * size : 0);
  MPI_Scatterv(out, counts, displs, MPI_INT, in, 2, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Allgather(out, 1, MPI_INT, in, 1, MPI_INT, MPI_COMM_WORLD);
  expect("2 MPI_COLLECTIVE_END Operation=ALLGATHER Sent=4 Received=%d CommName=MPI_COMM_WORLD", 4 * size);
  in[rank] = rank;
  MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, in, 1, MPI_INT, MPI_COMM_WORLD);
  int ok = 1;
  for (int i = 0; i < size; ++i) ok &= in[i] == i;
  printf("RESULT rank %d allgather in place %d\n", rank, ok);
  MPI_Allgatherv(out, 2, MPI_INT, in, counts, displs, MPI_INT, MPI_COMM_WORLD);
  MPI_Alltoall(out, 1, MPI_INT, in, 1, MPI_INT, MPI_COMM_WORLD);
  expect("1 MPI_COLLECTIVE_END Operation=ALLTOALL Sent=%d Received=%d", 4 * size, 4 * size);
  MPI_Alltoallv(out, counts, displs, MPI_INT, in, counts, displs, MPI_INT, MPI_COMM_WORLD);
  MPI_Datatype types[16];
  for (int i = 0; i < size; ++i) {
    types[i] = MPI_INT;
    displs[i] = 8 * i;  /* alltoallw displacements are in bytes */
  }
  MPI_Alltoallw(out, counts, displs, types, in, counts, displs, types, MPI_COMM_WORLD);
  expect("1 MPI_COLLECTIVE_END Operation=ALLTOALLW Sent=%d Received=%d", 8 * size, 8 * size);
  if (rank == 0) {
    MPI_Reduce(MPI_IN_PLACE, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    printf("RESULT reduce in place %g\n", sum);
  } else {
    MPI_Reduce(&sum, NULL, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  }
  expect("1 MPI_COLLECTIVE_END Operation=REDUCE Root=0 Sent=8 Received=%d", rank == 0 ? 8 : 0);
  total = rank;
  MPI_Allreduce(MPI_IN_PLACE, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  printf("RESULT rank %d allreduce in place %g\n", rank, total);
  expect("1 MPI_COLLECTIVE_END Operation=ALLREDUCE Sent=8 Received=8");
  int recvcounts[16];
  for (int i = 0; i < size; ++i) recvcounts[i] = 1;
  MPI_Reduce_scatter(out, in, recvcounts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  expect("1 MPI_COLLECTIVE_END Operation=REDUCE_SCATTER Sent=%d Received=4", 4 * size);
  MPI_Reduce_scatter_block(out, in, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Scan(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  expect("1 MPI_COLLECTIVE_END Operation=SCAN Sent=8 Received=8");
  MPI_Exscan(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  expect("1 MPI_COLLECTIVE_END Operation=EXSCAN");

}

static void nonblocking(void) {
  MPI_Request r[4];
  double value = rank, total = 0;
  int out[16] = {0}, in[16] = {0};
  MPI_Ibarrier(MPI_COMM_WORLD, &r[0]);
  MPI_Iallreduce(&value, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r[1]);
  MPI_Ibcast(out, 3, MPI_INT, 0, MPI_COMM_WORLD, &r[2]);
  MPI_Ialltoall(out, 1, MPI_INT, in, 1, MPI_INT, MPI_COMM_WORLD, &r[3]);
  MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
  printf("RESULT rank %d iallreduce %g\n", rank, total);

  expect("1 NON_BLOCKING_COLLECTIVE_COMPLETE Operation=BARRIER");
  expect("1 NON_BLOCKING_COLLECTIVE_COMPLETE Operation=ALLREDUCE Sent=8 Received=8");
  expect("1 NON_BLOCKING_COLLECTIVE_COMPLETE Operation=BCAST Root=0 Sent=%d Received=%d", rank == 0 ? 12 : 0,
         rank == 0 ? 0 : 12);
  expect("1 NON_BLOCKING_COLLECTIVE_COMPLETE Operation=ALLTOALL Sent=%d Received=%d", 4 * size, 4 * size);
  int flag = 0;
  MPI_Iscan(&value, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r[0]);
  while (!flag) MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE);
  expect("1 NON_BLOCKING_COLLECTIVE_COMPLETE Operation=SCAN");
}

static void neighborhood(void) {
  MPI_Comm ring;
  int dims[1] = {size}, periods[1] = {1};
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
  int out = rank, in[2] = {-1, -1};
  MPI_Neighbor_allgather(&out, 1, MPI_INT, in, 1, MPI_INT, ring);
  printf("RESULT rank %d neighbors %d %d\n", rank, in[0], in[1]);
  expect("1 MPI_COLLECTIVE_END Operation=ALLGATHER Sent=4 Received=8 CommName=MPI_Cart_create");
  int outs[2] = {rank, rank};
  MPI_Neighbor_alltoall(outs, 1, MPI_INT, in, 1, MPI_INT, ring);
  expect("1 MPI_COLLECTIVE_END Operation=ALLTOALL Sent=8 Received=8 CommName=MPI_Cart_create");
  MPI_Request request;
  MPI_Ineighbor_alltoall(outs, 1, MPI_INT, in, 1, MPI_INT, ring, &request);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  expect("1 NON_BLOCKING_COLLECTIVE_COMPLETE Operation=ALLTOALL Sent=8 Received=8 CommName=MPI_Cart_create");
  MPI_Comm_free(&ring);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  blocking();
  nonblocking();
  neighborhood();
  expect("20 MPI_COLLECTIVE_BEGIN");            /* 18 blocking + 2 neighborhood collectives */
  expect("6 NON_BLOCKING_COLLECTIVE_REQUEST");  /* 5 + 1 neighborhood */
  MPI_Finalize();
  return 0;
}

/* The policy for local query/glue calls and unsuccessful tests: counted, not
 * traced -- unless ORRERY_TRACE_QUERIES=1, when they become events too. */
#include "expect.h"
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const char* traced = getenv("ORRERY_TRACE_QUERIES");
  const int queries_traced = traced != NULL && strcmp(traced, "1") == 0;
  int rank = 0, size = 0;
  for (int i = 0; i < 5; ++i) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Datatype pair;
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  const int left = (rank + size - 1) % size, right = (rank + 1) % size;
  int out[2] = {rank, rank}, in[2] = {-1, -1}, flag = 0, tests = 0;
  MPI_Request request;
  MPI_Irecv(in, 1, pair, left, 1, MPI_COMM_WORLD, &request);
  MPI_Barrier(MPI_COMM_WORLD); /* nobody has sent yet: the first test fails */
  MPI_Test(&request, &flag, MPI_STATUS_IGNORE);
  ++tests;
  MPI_Send(out, 1, pair, right, 1, MPI_COMM_WORLD);
  while (!flag) {
    MPI_Test(&request, &flag, MPI_STATUS_IGNORE);
    ++tests;
  }
  MPI_Type_free(&pair);
  if (queries_traced) {
    expect("5 ENTER Region=MPI_Comm_rank");
    expect("1 ENTER Region=MPI_Type_commit");
    expect("%d ENTER Region=MPI_Test", tests);
    expect("%d MPI_REQUEST_TEST", tests - 1);
    expect("counted MPI_Comm_rank 0");
  } else {
    expect("0 ENTER Region=MPI_Comm_rank");
    expect("1 ENTER Region=MPI_Test");
    expect("0 MPI_REQUEST_TEST");
    expect("counted MPI_Comm_rank 5");
    expect("counted MPI_Type_contiguous 1");
    expect("counted MPI_Type_free 1");
    expect("counted MPI_Test %d", tests - 1);
  }
  expect("1 MPI_IRECV Sender=%d Tag=1 Length=8", left);
  printf("RESULT rank %d got %d %d\n", rank, in[0], in[1]);
  MPI_Finalize();
  return 0;
}

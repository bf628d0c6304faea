/* Communicators made without a collective the library can piggy-back on:
 * MPI_Comm_idup (of world and of a split, nested) and intercommunicators
 * (MPI_Intercomm_create between the even and odd ranks, MPI_Intercomm_merge,
 * an idup of the intercommunicator). Messages on each must map to the right
 * world ranks through one communicator id shared by all ranks (check_trace.py
 * matches every send with its receive by id and world ranks). */
#include <string.h>

#include "expect.h"

static void ring(MPI_Comm comm, int tag) {
  int me, n;
  MPI_Comm_rank(comm, &me);
  MPI_Comm_size(comm, &n);
  int out = me, in = -1;
  MPI_Sendrecv(&out, 1, MPI_INT, (me + 1) % n, tag, &in, 1, MPI_INT, (me + n - 1) % n, tag, comm,
               MPI_STATUS_IGNORE);
  printf("RESULT ring tag %d rank %d got %d\n", tag, me, in);
}

/* Rank i of one group exchanges with rank i of the other (if it exists). */
static void across(MPI_Comm inter, int tag, int world_rank) {
  int me, remote_size;
  MPI_Comm_rank(inter, &me);
  MPI_Comm_remote_size(inter, &remote_size);
  if (me >= remote_size) return;
  int out = world_rank, in = -1;
  MPI_Request requests[2];
  MPI_Irecv(&in, 1, MPI_INT, me, tag, inter, &requests[0]);
  MPI_Isend(&out, 1, MPI_INT, me, tag, inter, &requests[1]);
  MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
  MPI_Send(&out, 1, MPI_INT, me, tag + 1, inter);
  MPI_Recv(&in, 1, MPI_INT, MPI_ANY_SOURCE, tag + 1, inter, MPI_STATUS_IGNORE);
  /* The partner is the world rank that sent `in`: the trace must name it. */
  expect("1 MPI_SEND Tag=%d CommName=MPI_Intercomm_create", tag + 1);
  expect("1 MPI_RECV Tag=%d CommName=MPI_Intercomm_create", tag + 1);
  printf("RESULT across tag %d world %d partner %d\n", tag, world_rank, in);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  MPI_Comm dup, dup2, half, half_dup;
  MPI_Request requests[3];
  /* Split first: a blocking communicator creation while an MPI_Comm_idup is
   * pending is a known limit of the library (docs/measure.md). */
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  MPI_Comm_idup(MPI_COMM_WORLD, &dup, &requests[0]);
  MPI_Comm_idup(half, &half_dup, &requests[1]);
  MPI_Comm_idup(MPI_COMM_WORLD, &dup2, &requests[2]);
  MPI_Waitall(3, requests, MPI_STATUSES_IGNORE);
  ring(dup, 10);
  ring(dup2, 11);
  ring(half_dup, 12);
  expect("1 MPI_SEND Tag=10 CommName=MPI_Comm_idup");
  expect("1 MPI_SEND Tag=11 CommName=MPI_Comm_idup");

  /* Even ranks form group A (holds world rank 0), odd ranks group B. */
  MPI_Comm inter;
  MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 == 0 ? 1 : 0, 99, &inter);
  across(inter, 20, rank);
  MPI_Comm inter_dup;
  MPI_Request request;
  MPI_Comm_idup(inter, &inter_dup, &request);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  int me, remote_size;
  MPI_Comm_rank(inter_dup, &me);
  MPI_Comm_remote_size(inter_dup, &remote_size);
  if (me < remote_size) {
    int out = rank, in = -1;
    MPI_Sendrecv(&out, 1, MPI_INT, me, 30, &in, 1, MPI_INT, me, 30, inter_dup, MPI_STATUS_IGNORE);
    printf("RESULT inter_dup world %d partner %d\n", rank, in);
  }
  MPI_Comm merged;
  MPI_Intercomm_merge(inter, rank % 2, &merged);
  ring(merged, 40);
  int sum = 0;
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, merged);
  printf("RESULT merged sum %d\n", sum);

  MPI_Comm_free(&merged);
  MPI_Comm_free(&inter_dup);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&half_dup);
  MPI_Comm_free(&half);
  MPI_Comm_free(&dup2);
  MPI_Comm_free(&dup);
  MPI_Finalize();
  return 0;
}

/* Point-to-point: blocking, ANY_SOURCE/ANY_TAG, PROC_NULL, sendrecv, every
 * wait/test variant, persistent requests, probes, matched probes, cancel. */
#include "expect.h"

static int rank, size, left, right;

static void blocking(void) {
  int data[10] = {0};
  if (rank % 2 == 0) {
    MPI_Send(data, 10, MPI_INT, right, 100, MPI_COMM_WORLD);
    MPI_Recv(data, 10, MPI_INT, left, 100, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else {
    MPI_Recv(data, 10, MPI_INT, left, 100, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Ssend(data, 10, MPI_INT, right, 100, MPI_COMM_WORLD);
  }
  /* Uninstrumented: MPI_Init and MPI_Finalize directly in the program root. */
  expect("parent MPI_Init @root");
  expect("parent MPI_Finalize @root");
  expect("1 ENTER Region=MPI_Init");
  expect("1 MPI_SEND Receiver=%d Tag=100 Length=40 CommName=MPI_COMM_WORLD", right);
  expect("1 MPI_RECV Sender=%d Tag=100 Length=40", left);
}

static void wildcards(void) {
  double value = rank;
  if (rank == 0) {
    for (int i = 1; i < size; ++i) {
      MPI_Status status;
      MPI_Recv(&value, 1, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
      expect("1 MPI_RECV Sender=%d Tag=%d Length=8", status.MPI_SOURCE, status.MPI_TAG);
    }
  } else {
    MPI_Send(&value, 1, MPI_DOUBLE, 0, 200 + rank, MPI_COMM_WORLD);
  }
  MPI_Barrier(MPI_COMM_WORLD); /* keep rank 0's ANY_TAG receives away from tag 250 */
  /* ANY_SOURCE through a request, status ignored by the program. */
  MPI_Request request;
  int token = rank;
  MPI_Irecv(&token, 1, MPI_INT, MPI_ANY_SOURCE, 250, MPI_COMM_WORLD, &request);
  MPI_Send(&rank, 1, MPI_INT, right, 250, MPI_COMM_WORLD);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  expect("1 MPI_IRECV Sender=%d Tag=250 Length=4", token);
}

static void proc_null(void) {
  int data = 0;
  MPI_Status status;
  MPI_Request requests[2];
  MPI_Send(&data, 1, MPI_INT, MPI_PROC_NULL, 999, MPI_COMM_WORLD);
  MPI_Recv(&data, 1, MPI_INT, MPI_PROC_NULL, 999, MPI_COMM_WORLD, &status);
  MPI_Isend(&data, 1, MPI_INT, MPI_PROC_NULL, 999, MPI_COMM_WORLD, &requests[0]);
  MPI_Irecv(&data, 1, MPI_INT, MPI_PROC_NULL, 999, MPI_COMM_WORLD, &requests[1]);
  MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
  MPI_Sendrecv(&data, 1, MPI_INT, MPI_PROC_NULL, 999, &data, 1, MPI_INT, MPI_PROC_NULL, 999, MPI_COMM_WORLD, &status);
  expect("absent MPI_SEND Tag=999");
  expect("absent MPI_RECV Tag=999");
  expect("absent MPI_ISEND Tag=999");
  expect("absent MPI_IRECV Tag=999");
}

/* Open MPI hands out one shared, completed request object for eager sends and
 * PROC_NULL peers: every post must still get its own completion. */
static void shared_handles(void) {
  int peers[4] = {MPI_PROC_NULL, left, MPI_PROC_NULL, left};
  int targets[4] = {MPI_PROC_NULL, right, MPI_PROC_NULL, right};
  int in[4] = {0}, out[4] = {0};
  MPI_Request r[8];
  for (int p = 0; p < 4; ++p) MPI_Irecv(&in[p], 1, MPI_INT, peers[p], 800 + p, MPI_COMM_WORLD, &r[p]);
  for (int p = 0; p < 4; ++p) MPI_Isend(&out[p], 1, MPI_INT, targets[p], 800 + p, MPI_COMM_WORLD, &r[4 + p]);
  MPI_Waitall(8, r, MPI_STATUSES_IGNORE);
  expect("1 MPI_ISEND Receiver=%d Tag=801", right);
  expect("1 MPI_ISEND Receiver=%d Tag=803", right);
  for (int p = 0; p < 2; ++p) MPI_Isend(&out[p], 1, MPI_INT, right, 810, MPI_COMM_WORLD, &r[p]);
  for (int p = 0; p < 2; ++p) MPI_Irecv(&in[p], 1, MPI_INT, left, 810, MPI_COMM_WORLD, &r[2 + p]);
  for (int p = 3; p >= 0; --p) MPI_Wait(&r[p], MPI_STATUS_IGNORE);
  expect("2 MPI_IRECV Sender=%d Tag=810", left);
}

/* The other send modes, and MPI_Pcontrol (a traced no-op region). */
static void send_modes(void) {
  char attached[1024];
  void* detached = NULL;
  int size_detached = 0, in = 0, out = rank;
  MPI_Buffer_attach(attached, sizeof attached);
  MPI_Request request;
  MPI_Irecv(&in, 1, MPI_INT, left, 900, MPI_COMM_WORLD, &request);
  MPI_Barrier(MPI_COMM_WORLD); /* every receive is posted: a ready send is legal */
  MPI_Rsend(&out, 1, MPI_INT, right, 900, MPI_COMM_WORLD);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  MPI_Bsend(&out, 1, MPI_INT, right, 901, MPI_COMM_WORLD);
  MPI_Recv(&in, 1, MPI_INT, left, 901, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Buffer_detach(&detached, &size_detached);
  MPI_Pcontrol(1);
  expect("1 MPI_SEND Receiver=%d Tag=900", right);
  expect("1 MPI_SEND Receiver=%d Tag=901 Length=4", right);
  expect("1 ENTER Region=MPI_Rsend");
  expect("1 ENTER Region=MPI_Bsend");
  expect("1 ENTER Region=MPI_Pcontrol");
  expect("counted MPI_Buffer_attach 1");
}

static void sendrecv(void) {
  int out = rank, in = -1;
  MPI_Sendrecv(&out, 1, MPI_INT, right, 300, &in, 1, MPI_INT, left, 300, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  expect("1 MPI_SEND Receiver=%d Tag=300", right);
  expect("1 MPI_RECV Sender=%d Tag=300", left);
  MPI_Sendrecv_replace(&out, 1, MPI_INT, right, 301, left, 301, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  expect("1 MPI_SEND Receiver=%d Tag=301 Length=4", right);
  expect("1 MPI_RECV Sender=%d Tag=301 Length=4", left);
}

/* Posts an irecv from left and an isend to right with `tag`. */
static void post_pair(int tag, MPI_Request requests[2], int* in, int* out) {
  MPI_Irecv(in, 1, MPI_INT, left, tag, MPI_COMM_WORLD, &requests[0]);
  MPI_Isend(out, 1, MPI_INT, right, tag, MPI_COMM_WORLD, &requests[1]);
  expect("1 MPI_IRECV Sender=%d Tag=%d", left, tag);
  expect("1 MPI_ISEND Receiver=%d Tag=%d", right, tag);
}

static void waits_and_tests(void) {
  MPI_Request r[2];
  int in = 0, out = rank, index = 0, count = 0, indices[2], flag = 0, tests = 0;
  MPI_Status statuses[2];
  post_pair(400, r, &in, &out);
  MPI_Wait(&r[0], MPI_STATUS_IGNORE);
  MPI_Wait(&r[1], MPI_STATUS_IGNORE);
  post_pair(401, r, &in, &out);
  MPI_Waitall(2, r, statuses);
  post_pair(402, r, &in, &out);
  for (int done = 0; done < 2; ++done) MPI_Waitany(2, r, &index, MPI_STATUS_IGNORE);
  post_pair(403, r, &in, &out);
  for (int done = 0; done < 2; done += count) MPI_Waitsome(2, r, &count, indices, MPI_STATUSES_IGNORE);

  /* Unsuccessful tests are counted, not traced; the successful ones are traced. */
  int test_calls = 0, successful = 0;
  post_pair(404, r, &in, &out);
  for (int i = 0; i < 2; ++i) {
    flag = 0;
    while (!flag) {
      MPI_Test(&r[i], &flag, MPI_STATUS_IGNORE);
      ++test_calls;
    }
    ++successful;
  }
  expect("counted MPI_Test %d", test_calls - successful);
  expect("%d ENTER Region=MPI_Test", successful);
  post_pair(405, r, &in, &out);
  for (flag = 0, tests = 0; !flag; ++tests) MPI_Testall(2, r, &flag, MPI_STATUSES_IGNORE);
  expect("counted MPI_Testall %d", tests - 1);
  post_pair(406, r, &in, &out);
  for (int done = 0; done < 2;) {
    MPI_Testany(2, r, &index, &flag, MPI_STATUS_IGNORE);
    if (flag && index != MPI_UNDEFINED) ++done;
  }
  post_pair(407, r, &in, &out);
  for (int done = 0; done < 2;) {
    MPI_Testsome(2, r, &count, indices, statuses);
    if (count != MPI_UNDEFINED) done += count;
  }
}

static void persistent(void) {
  MPI_Request r[2];
  int in = 0, out = rank;
  MPI_Recv_init(&in, 1, MPI_INT, left, 500, MPI_COMM_WORLD, &r[0]);
  MPI_Send_init(&out, 1, MPI_INT, right, 500, MPI_COMM_WORLD, &r[1]);
  for (int i = 0; i < 3; ++i) {
    MPI_Startall(2, r);
    MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
  }
  MPI_Start(&r[0]);
  MPI_Start(&r[1]);
  MPI_Wait(&r[1], MPI_STATUS_IGNORE);
  MPI_Wait(&r[0], MPI_STATUS_IGNORE);
  MPI_Request_free(&r[0]);
  MPI_Request_free(&r[1]);
  expect("4 MPI_ISEND Receiver=%d Tag=500", right);
  expect("4 MPI_IRECV Sender=%d Tag=500", left);
  expect("3 ENTER Region=MPI_Startall");
  expect("2 ENTER Region=MPI_Start");
  expect("2 ENTER Region=MPI_Request_free");
}

static void probes(void) {
  int in = 0, out = rank, flag = 0, iprobes = 0;
  MPI_Status status;
  MPI_Send(&out, 1, MPI_INT, right, 600, MPI_COMM_WORLD);
  MPI_Probe(MPI_ANY_SOURCE, 600, MPI_COMM_WORLD, &status);
  MPI_Recv(&in, 1, MPI_INT, status.MPI_SOURCE, 600, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Send(&out, 1, MPI_INT, right, 601, MPI_COMM_WORLD);
  while (!flag) {
    MPI_Iprobe(left, 601, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    ++iprobes;
  }
  MPI_Recv(&in, 1, MPI_INT, left, 601, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  expect("counted MPI_Iprobe %d", iprobes - 1);
  expect("1 ENTER Region=MPI_Iprobe");
  MPI_Message message;
  MPI_Send(&out, 1, MPI_INT, right, 602, MPI_COMM_WORLD);
  MPI_Mprobe(MPI_ANY_SOURCE, 602, MPI_COMM_WORLD, &message, &status);
  MPI_Mrecv(&in, 1, MPI_INT, &message, MPI_STATUS_IGNORE);
  expect("1 MPI_RECV Sender=%d Tag=602 Length=4", left);
  MPI_Request request;
  MPI_Send(&out, 1, MPI_INT, right, 603, MPI_COMM_WORLD);
  for (flag = 0; !flag;) MPI_Improbe(left, 603, MPI_COMM_WORLD, &flag, &message, &status);
  MPI_Imrecv(&in, 1, MPI_INT, &message, &request);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  expect("1 MPI_IRECV Sender=%d Tag=603 Length=4", left);
}

static void cancel(void) {
  MPI_Request request;
  int in = 0, cancelled = 0;
  MPI_Status status;
  MPI_Irecv(&in, 1, MPI_INT, left, 700, MPI_COMM_WORLD, &request);
  MPI_Cancel(&request);
  MPI_Wait(&request, &status);
  MPI_Test_cancelled(&status, &cancelled);
  expect("%d MPI_REQUEST_CANCELLED", cancelled ? 1 : 0);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  left = (rank + size - 1) % size;
  right = (rank + 1) % size;
  blocking();
  wildcards();
  proc_null();
  shared_handles();
  send_modes();
  sendrecv();
  waits_and_tests();
  persistent();
  probes();
  cancel();
  MPI_Barrier(MPI_COMM_WORLD);
  expect("counted MPI_Comm_rank 1");
  expect("1 ENTER Region=MPI_Init");
  expect("1 ENTER Region=MPI_Finalize");
  MPI_Finalize();
  printf("RESULT rank %d done\n", rank);
  return 0;
}

/* MPI_Init_thread with a second thread making MPI calls: only the thread that
 * called MPI_Init_thread records; the other thread's calls are counted. The
 * other thread also creates communicators: they are registered all the same
 * (a split that the MPI thread then uses, named by the call that made it and
 * with its members, and a dup it frees itself). */
#include "expect.h"
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static int calls;
static MPI_Comm reversed = MPI_COMM_NULL;

static void* worker(void* arg) {
  (void)arg;
  int rank = 0;
  for (int i = 0; i < 100; ++i) {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    ++calls;
  }
  MPI_Comm copy;
  MPI_Comm_dup(MPI_COMM_WORLD, &copy);
  MPI_Comm_free(&copy);
  MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &reversed);
  return NULL;
}

int main(int argc, char** argv) {
  int provided = 0, rank = 0, size = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  pthread_t thread;
  pthread_create(&thread, NULL, worker, NULL);
  pthread_join(thread, NULL);
  MPI_Barrier(MPI_COMM_WORLD);
  int value = rank, sum = 0;
  MPI_Allreduce(&value, &sum, 1, MPI_INT, MPI_SUM, reversed);
  MPI_Comm_free(&reversed);
  char members[512] = "";
  for (int r = size - 1; r >= 0; --r) sprintf(members + strlen(members), r == size - 1 ? "%d" : ",%d", r);
  expect("1 MPI_COLLECTIVE_END Operation=ALLREDUCE CommName=MPI_Comm_split CommMembers=%s", members);
  expect("other_thread_calls_at_least %d", calls);
  expect("counted MPI_Comm_rank 1");
  expect("1 ENTER Region=MPI_Init_thread");
  expect("1 MPI_COLLECTIVE_END Operation=BARRIER");
  printf("RESULT rank %d provided %d\n", rank, provided >= MPI_THREAD_SERIALIZED);
  MPI_Finalize();
  return 0;
}

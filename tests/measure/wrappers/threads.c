/* MPI_Init_thread with a second thread making MPI calls: only the thread that
 * called MPI_Init_thread records; the other thread's calls are counted. */
#include "expect.h"
#include <pthread.h>

static void* worker(void* arg) {
  int* calls = arg;
  int rank = 0;
  for (int i = 0; i < 100; ++i) {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    ++*calls;
  }
  return NULL;
}

int main(int argc, char** argv) {
  int provided = 0, rank = 0, calls = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  pthread_t thread;
  pthread_create(&thread, NULL, worker, &calls);
  pthread_join(thread, NULL);
  MPI_Barrier(MPI_COMM_WORLD);
  expect("other_thread_calls_at_least %d", calls);
  expect("counted MPI_Comm_rank 1");
  expect("1 ENTER Region=MPI_Init_thread");
  expect("1 MPI_COLLECTIVE_END Operation=BARRIER");
  printf("RESULT rank %d provided %d\n", rank, provided >= MPI_THREAD_SERIALIZED);
  MPI_Finalize();
  return 0;
}

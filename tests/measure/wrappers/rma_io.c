/* One-sided communication and MPI-IO: traced as regions with their roles. */
#include "expect.h"
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int right = (rank + 1) % size;
  int window[8] = {0}, got = -1, one = 1, old = 0;
  MPI_Win win;
  MPI_Win_create(window, sizeof window, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Win_fence(0, win);
  MPI_Put(&rank, 1, MPI_INT, right, 0, 1, MPI_INT, win);
  MPI_Win_fence(0, win);
  MPI_Get(&got, 1, MPI_INT, right, 0, 1, MPI_INT, win);
  MPI_Accumulate(&one, 1, MPI_INT, right, 1, 1, MPI_INT, MPI_SUM, win);
  MPI_Win_fence(0, win);
  MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
  MPI_Get_accumulate(&one, 1, MPI_INT, &old, 1, MPI_INT, right, 2, 1, MPI_INT, MPI_SUM, win);
  MPI_Win_flush(right, win);
  MPI_Win_unlock(right, win);
  MPI_Win_lock_all(0, win);
  MPI_Fetch_and_op(&one, &old, MPI_INT, right, 3, MPI_SUM, win);
  MPI_Win_flush_all(win);
  MPI_Win_unlock_all(win);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_free(&win);
  printf("RESULT rank %d put/get %d window %d %d\n", rank, got, window[0], window[1]);
  expect("3 ENTER Region=MPI_Win_fence");
  expect("1 ENTER Region=MPI_Put");
  expect("1 ENTER Region=MPI_Get_accumulate");
  expect("1 ENTER Region=MPI_Win_flush");
  expect("1 ENTER Region=MPI_Win_flush_all");

  char path[4200];
  const char* prefix = getenv("ORRERY_TEST_EXPECT");
  snprintf(path, sizeof path, "%s.data", prefix ? prefix : "/tmp/orrery-measure-rma-io");
  MPI_File file;
  MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &file);
  MPI_File_write_at(file, rank * (MPI_Offset)sizeof(int), &rank, 1, MPI_INT, MPI_STATUS_IGNORE);
  MPI_File_sync(file);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_File_sync(file);
  int read_back = -1;
  MPI_File_read_at(file, right * (MPI_Offset)sizeof(int), &read_back, 1, MPI_INT, MPI_STATUS_IGNORE);
  MPI_File_close(&file);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) MPI_File_delete(path, MPI_INFO_NULL);
  printf("RESULT rank %d read %d\n", rank, read_back);
  expect("1 ENTER Region=MPI_File_open");
  expect("1 ENTER Region=MPI_File_write_at");
  expect("1 ENTER Region=MPI_File_read_at");
  expect("1 ENTER Region=MPI_File_close");
  MPI_Finalize();
  return 0;
}

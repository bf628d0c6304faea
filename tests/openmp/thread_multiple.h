/* MPI_Init_thread with MPI_THREAD_MULTIPLE for the hybrid test programs:
 * aborts with a message naming `program` if the MPI library cannot give it. */
#ifndef ORRERY_OPENMP_THREAD_MULTIPLE_H
#define ORRERY_OPENMP_THREAD_MULTIPLE_H

#include <mpi.h>
#include <stdio.h>

static void init_thread_multiple(int* argc, char*** argv, const char* program) {
  int provided = 0;
  MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
  if (provided < MPI_THREAD_MULTIPLE) {
    fprintf(stderr, "%s: MPI_THREAD_MULTIPLE not provided\n", program);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
}

#endif

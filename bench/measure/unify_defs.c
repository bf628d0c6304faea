/* A program with many definitions, for the unification benchmark
 * (run_unify_bench.py): every rank enters the same COMMON user regions and
 * OWN regions of its own, duplicates MPI_COMM_WORLD DUPS times and splits it
 * SPLITS times into groups of 4 ranks (P/4 distinct communicators each).
 *   unify_defs [COMMON [OWN [DUPS [SPLITS]]]]   (defaults 200 4 8 4) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "orrery/orrery.h"

static int argument(int argc, char** argv, int index, int fallback) {
  return argc > index ? atoi(argv[index]) : fallback;
}

static void enter_and_leave(const char* name) {
  ORRERY_REGION_BEGIN(name);
  ORRERY_REGION_END(name);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int common = argument(argc, argv, 1, 200);
  const int own = argument(argc, argv, 2, 4);
  const int dups = argument(argc, argv, 3, 8);
  const int splits = argument(argc, argv, 4, 4);
  char name[64];
  for (int i = 0; i < common; ++i) {
    snprintf(name, sizeof name, "common_region_%d", i);
    enter_and_leave(name);
  }
  for (int i = 0; i < own; ++i) {
    snprintf(name, sizeof name, "rank_%d_region_%d", rank, i);
    enter_and_leave(name);
  }
  for (int i = 0; i < dups; ++i) {
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Barrier(dup);
    MPI_Comm_free(&dup);
  }
  for (int i = 0; i < splits; ++i) {
    MPI_Comm group;
    MPI_Comm_split(MPI_COMM_WORLD, rank / 4, rank, &group);
    MPI_Barrier(group);
    MPI_Comm_free(&group);
  }
  MPI_Finalize();
  return 0;
}

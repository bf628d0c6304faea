// Compiler instrumentation (-finstrument-functions), the user region API, the
// filter, and ranks that define different regions (unification).
#include <mpi.h>
#include <orrery/orrery.h>

#include <cstdio>

#include "expect.h"

namespace physics {
struct Solver {
  int step(int n);
};
int Solver::step(int n) { return n + 1; }
}  // namespace physics

static int filtered_helper(int x) { return 2 * x; }
// Called before MPI_Init: recorded from the library's load, in main, in the program root.
static int warm_up(int x) { return x ^ 1; }
static const int kWarmUps = 400;  // 800 events: more than a 4 KiB buffer holds
static int only_on_rank0() { return 42; }
static int only_on_rank1() { return 43; }

int main(int argc, char** argv) {
  int warm = 0;
  for (int i = 0; i < kWarmUps; ++i) warm += warm_up(i);
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  physics::Solver solver;
  int value = 0;
  for (int i = 0; i < 5; ++i) value = solver.step(value);
  for (int i = 0; i < 3; ++i) value += filtered_helper(i);
  if (rank == 0) {
    ORRERY_REGION_BEGIN("rank0_region");
    value += only_on_rank0();
    ORRERY_REGION_END("rank0_region");
    expect("1 ENTER Region=rank0_region");
    expect("1 ENTER Region=only_on_rank0()");
  } else if (rank == 1) {
    orrery::Region region("rank1_region");
    value += only_on_rank1();
    expect("1 ENTER Region=rank1_region");
    expect("1 ENTER Region=only_on_rank1()");
  }
  for (int i = 0; i < 2; ++i) {
    orrery::Region common("common");
    ORRERY_REGION_BEGIN("user_excluded_loop");
    ORRERY_REGION_END("user_excluded_loop");
    ORRERY_REGION_BEGIN("user_excluded_but_included");
    ORRERY_REGION_END("user_excluded_but_included");
  }
  expect("parent main @root");
  expect("enter_before main MPI_Init");
  expect("parent MPI_Init main");
  expect("parent MPI_Finalize main");
  expect("%d ENTER Region=warm_up(int)", kWarmUps);
  expect("parent warm_up(int) main");
  expect("enter_before warm_up(int) MPI_Init");
  expect("5 ENTER Region=physics::Solver::step(int)");
  expect("2 ENTER Region=common");
  expect("2 ENTER Region=user_excluded_but_included");
  expect("region_file physics::Solver::step(int) regions.cpp");
  expect("no_region filtered_helper(int)");
  expect("no_region user_excluded_loop");
  int total = 0;
  MPI_Allreduce(&value, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  std::printf("RESULT rank %d value %d total %d warm %d\n", rank, value, total, warm);
  MPI_Finalize();
  return 0;
}

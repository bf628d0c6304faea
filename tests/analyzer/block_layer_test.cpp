// The block layer of vmpi.h (fewer analysis processes than traced ranks):
// 5 traced ranks hosted by the processes of this run (mpirun -np 1, 2 or 3),
// one thread each, calling every operation the replays use; each result is
// the one MPI defines for 5 ranks.

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "block_host.h"
#include "vmpi.h"

namespace orrery::vmpi {
namespace {

constexpr uint32_t kRanks = 5;

/// (digits, count): concatenation of decimal digits, associative and not
/// commutative, so a wrong combination order shows.
void concatenate(void* in, void* inout, int* length, MPI_Datatype* /*type*/) {
  const auto* a = static_cast<const int64_t*>(in);
  auto* b = static_cast<int64_t*>(inout);
  for (int i = 0; i < *length; ++i) {
    int64_t scale = 1;
    for (int64_t d = 0; d < b[2 * i + 1]; ++d) scale *= 10;
    b[2 * i] = a[2 * i] * scale + b[2 * i];
    b[2 * i + 1] += a[2 * i + 1];
  }
}

void reductions(MPI_Comm world, int r) {
  int value = r + 1, sum = 0, maximum = 0;
  Allreduce(&value, &sum, 1, MPI_INT, MPI_SUM, world);
  EXPECT_EQ(sum, 15);
  Allreduce(MPI_IN_PLACE, &value, 1, MPI_INT, MPI_MAX, world);
  maximum = value;
  EXPECT_EQ(maximum, 5);
  MPI_Datatype pair = MPI_DATATYPE_NULL;
  MPI_Type_contiguous(2, MPI_INT64_T, &pair);
  MPI_Type_commit(&pair);
  MPI_Op in_order = MPI_OP_NULL;
  MPI_Op_create(&concatenate, 0, &in_order);
  int64_t digits[2] = {r + 1, 1};
  Allreduce(MPI_IN_PLACE, digits, 1, pair, in_order, world);
  EXPECT_EQ(digits[0], 12345) << "rank order of a non-commutative reduction";
  int64_t prefix[2] = {r + 1, 1};
  Scan(MPI_IN_PLACE, prefix, 1, pair, in_order, world);
  const int64_t expected[] = {1, 12, 123, 1234, 12345};
  EXPECT_EQ(prefix[0], expected[r]);
  MPI_Op_free(&in_order);
  MPI_Type_free(&pair);

  int64_t mine = r + 1, below = -7;
  Exscan(&mine, &below, 1, MPI_INT64_T, MPI_SUM, world);
  EXPECT_EQ(below, r == 0 ? -7 : int64_t{r} * (r + 1) / 2);
  int root_value = r == 3 ? 42 : 0;
  Bcast(&root_value, 1, MPI_INT, 3, world);
  EXPECT_EQ(root_value, 42);
  int reduced = -1;
  Reduce(&r, &reduced, 1, MPI_INT, MPI_MAX, 2, world);
  EXPECT_EQ(reduced, r == 2 ? 4 : -1);
}

void gathers(MPI_Comm world, int r) {
  // Rank q contributes q + 1 copies of q, at displacement 10 q.
  std::vector<int> mine(static_cast<std::size_t>(r + 1), r), all(50, -1);
  std::vector<int> counts{1, 2, 3, 4, 5}, displacements{0, 10, 20, 30, 40};
  Gatherv(mine.data(), r + 1, MPI_INT, all.data(), counts.data(), displacements.data(), MPI_INT,
          1, world);
  if (r == 1) {
    for (int q = 0; q < 5; ++q) {
      for (int k = 0; k < 10; ++k) EXPECT_EQ(all[static_cast<std::size_t>(10 * q + k)], k <= q ? q : -1);
    }
  }
  int square = r * r;
  std::vector<int> squares(5, -1);
  Allgather(&square, 1, MPI_INT, squares.data(), 1, MPI_INT, world);
  EXPECT_EQ(squares, (std::vector<int>{0, 1, 4, 9, 16}));
}

void point_to_point(MPI_Comm world, int r) {
  // A ring with any-source receives.
  int out = 100 + r, in = -1;
  MPI_Request requests[2];
  Irecv(&in, 1, MPI_INT, MPI_ANY_SOURCE, 7, world, &requests[0]);
  Isend(&out, 1, MPI_INT, (r + 1) % 5, 7, world, &requests[1]);
  MPI_Status statuses[2];
  Waitall(2, requests, statuses);
  EXPECT_EQ(in, 100 + (r + 4) % 5);
  EXPECT_EQ(statuses[0].MPI_SOURCE, (r + 4) % 5);
  EXPECT_EQ(statuses[0].MPI_TAG, 7);
  // Probe tells the size.
  std::vector<double> data(static_cast<std::size_t>(r + 1), r);
  Send(data.data(), r + 1, MPI_DOUBLE, (r + 2) % 5, 8, world);
  MPI_Status status;
  Probe(MPI_ANY_SOURCE, 8, world, &status);
  int count = 0;
  MPI_Get_count(&status, MPI_DOUBLE, &count);
  EXPECT_EQ(status.MPI_SOURCE, (r + 3) % 5);
  EXPECT_EQ(count, (r + 3) % 5 + 1);
  std::vector<double> received(static_cast<std::size_t>(count));
  Recv(received.data(), count, MPI_DOUBLE, status.MPI_SOURCE, 8, world, MPI_STATUS_IGNORE);
  EXPECT_EQ(received.back(), (r + 3) % 5);
  // Messages between two ranks arrive in the order sent (0 and 4 live in
  // different processes unless there is one).
  if (r == 0) {
    for (int k = 1; k <= 3; ++k) Send(&k, 1, MPI_INT, 4, 9, world);
  } else if (r == 4) {
    for (int k = 1; k <= 3; ++k) {
      int got = 0;
      Recv(&got, 1, MPI_INT, 0, 9, world, MPI_STATUS_IGNORE);
      EXPECT_EQ(got, k);
    }
  }
  // A synchronous send completes only once received: rank 2 receives after
  // a barrier that rank 1 enters after testing.
  MPI_Request sync = MPI_REQUEST_NULL;
  if (r == 1) {
    Issend(&out, 1, MPI_INT, 2, 10, world, &sync);
    int done = 1;
    Test(&sync, &done, MPI_STATUS_IGNORE);
    EXPECT_EQ(done, 0) << "a synchronous send completed before its receive";
  }
  Barrier(world);
  if (r == 2) Recv(&in, 1, MPI_INT, 1, 10, world, MPI_STATUS_IGNORE);
  if (r == 1) Waitall(1, &sync, MPI_STATUSES_IGNORE);
  EXPECT_EQ(sync, MPI_REQUEST_NULL);
}

void communicators(MPI_Comm world, int r) {
  MPI_Comm dup = MPI_COMM_NULL, self = MPI_COMM_NULL, group_comm = MPI_COMM_NULL;
  Comm_dup(world, &dup);
  Comm_dup(MPI_COMM_SELF, &self);
  int size = 0, sum = 0;
  Comm_size(self, &size);
  EXPECT_EQ(size, 1);
  Allreduce(&r, &sum, 1, MPI_INT, MPI_SUM, self);
  EXPECT_EQ(sum, r);
  // Non-blocking collectives on two communicators, completed in reverse.
  int total = 0, broadcast = r == 0 ? 9 : 0;
  MPI_Request requests[2];
  Iallreduce(&r, &total, 1, MPI_INT, MPI_SUM, world, &requests[0]);
  Ibcast(&broadcast, 1, MPI_INT, 0, dup, &requests[1]);
  std::swap(requests[0], requests[1]);
  Waitall(2, requests, MPI_STATUSES_IGNORE);
  EXPECT_EQ(total, 10);
  EXPECT_EQ(broadcast, 9);
  // A communicator of ranks 1, 3, 4.
  MPI_Group world_group = MPI_GROUP_NULL, members = MPI_GROUP_NULL;
  Comm_group(world, &world_group);
  const int ranks[] = {1, 3, 4};
  Group_incl(world_group, 3, ranks, &members);
  if (r == 1 || r == 3 || r == 4) {
    Comm_create_group(world, members, 5, &group_comm);
    int rank_in_group = -1;
    Comm_rank(group_comm, &rank_in_group);
    EXPECT_EQ(rank_in_group, r == 1 ? 0 : r == 3 ? 1 : 2);
    Allreduce(&r, &sum, 1, MPI_INT, MPI_SUM, group_comm);
    EXPECT_EQ(sum, 8);
    Comm_free(&group_comm);
  }
  Group_free(&members);
  Group_free(&world_group);
  // A distributed graph: rank r's in-neighbours are r+1 and r+2.
  const int sources[] = {(r + 1) % 5, (r + 2) % 5}, degrees[] = {1, 1}, destinations[] = {r, r};
  MPI_Comm graph = MPI_COMM_NULL;
  Dist_graph_create(dup, 2, sources, degrees, destinations, MPI_UNWEIGHTED, MPI_INFO_NULL, 0,
                    &graph);
  int indegree = 0, outdegree = 0, weighted = 1;
  Dist_graph_neighbors_count(graph, &indegree, &outdegree, &weighted);
  EXPECT_EQ(indegree, 2);
  EXPECT_EQ(outdegree, 2);
  std::vector<int> from(2, -1);
  Neighbor_allgather(&r, 1, MPI_INT, from.data(), 1, MPI_INT, graph);
  std::sort(from.begin(), from.end());
  std::vector<int> expected{(r + 1) % 5, (r + 2) % 5};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(from, expected);
  Comm_free(&graph);
  Comm_free(&self);
  Comm_free(&dup);
}

TEST(BlockLayer, FiveTracedRanksOnTheProcessesOfThisRun) {
  std::vector<int> ran(kRanks, 0);
  host_block(kRanks, [&](MPI_Comm world, uint32_t rank) {
    int r = -1, size = 0;
    Comm_rank(world, &r);
    Comm_size(world, &size);
    EXPECT_EQ(r, static_cast<int>(rank));
    EXPECT_EQ(size, 5);
    reductions(world, r);
    gathers(world, r);
    point_to_point(world, r);
    communicators(world, r);
    ran[rank] = 1;
  });
  int processes = 0, process = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &processes);
  MPI_Comm_rank(MPI_COMM_WORLD, &process);
  const auto starts = block_starts(kRanks, processes);
  for (uint32_t rank = 0; rank < kRanks; ++rank) {
    const bool mine = rank >= starts[static_cast<std::size_t>(process)] &&
                      rank < starts[static_cast<std::size_t>(process) + 1];
    EXPECT_EQ(ran[rank], mine ? 1 : 0) << "traced rank " << rank;
  }
}

}  // namespace
}  // namespace orrery::vmpi

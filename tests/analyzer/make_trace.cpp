// analyzer_make_trace DIR RANKS: writes a small OTF2 experiment with known
// wait states (a late sender 1 -> 0 and an imbalanced barrier) for the
// command-line and report-schema tests.

#include <cstdio>
#include <cstdlib>
#include <string>

#include "test_archive.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: analyzer_make_trace DIR RANKS\n");
    return 2;
  }
  const auto ranks = static_cast<uint32_t>(std::atoi(argv[2]));
  if (ranks < 2) {
    std::fprintf(stderr, "analyzer_make_trace: RANKS must be at least 2\n");
    return 2;
  }
  using orrery::testing::Collective;
  using orrery::testing::TestArchive;
  TestArchive a(argv[1], ranks);
  const uint32_t main_region = a.region("main");
  const uint32_t solve = a.region("solve");
  const uint32_t recv = a.region("MPI_Recv", "mpi");
  const uint32_t send = a.region("MPI_Send", "mpi");
  const uint32_t barrier = a.region("MPI_Barrier", "mpi");
  const uint64_t ms = 1000000;
  for (uint32_t r = 0; r < ranks; ++r) {
    auto& rank = a.rank(r);
    rank.enter(0, main_region);
    rank.enter(1 * ms, solve);
    if (r == 0) {
      rank.enter(2 * ms, recv);
      rank.recv(50 * ms, 1, TestArchive::kWorld, 0, 1024);
      rank.leave(50 * ms, recv);
    } else if (r == 1) {
      rank.enter(40 * ms, send);
      rank.send(40 * ms, 0, TestArchive::kWorld, 0, 1024);
      rank.leave(41 * ms, send);
    }
    rank.leave(60 * ms + r * 10 * ms, solve);
    rank.enter(60 * ms + r * 10 * ms, barrier);
    rank.collective_begin(60 * ms + r * 10 * ms);
    rank.collective_end(100 * ms, Collective::kBarrier, TestArchive::kWorld, TestArchive::kNoRoot,
                        0, 0);
    rank.leave(100 * ms, barrier);
    rank.leave(110 * ms, main_region);
  }
  a.close();
  return 0;
}

// scaling_trace DIR RANKS EVENTS_PER_RANK: writes the weak-scaling
// benchmark's trace (bench/analyzer/weak_scaling.py): the same work per rank
// at any rank count, collective-heavy. Per iteration and rank (16 events): a
// compute region, a ring exchange (MPI_Send to the next rank, MPI_Recv from
// the previous), an MPI_Allreduce over all ranks, and in turn an MPI_Bcast
// (root 0), an MPI_Reduce (root 0), an MPI_Barrier or an MPI_Scan. The
// compute time varies by rank and iteration, so every pattern sees waiting.
// Timestamps are causally consistent (no clock corrections needed).

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "test_archive.h"

namespace {

using orrery::testing::Collective;
using orrery::testing::TestArchive;

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: scaling_trace DIR RANKS EVENTS_PER_RANK\n");
    return 2;
  }
  const auto ranks = static_cast<uint32_t>(std::strtoul(argv[2], nullptr, 10));
  const uint64_t events = std::strtoull(argv[3], nullptr, 10);
  if (ranks < 2 || events < 16) {
    std::fprintf(stderr, "scaling_trace: RANKS must be at least 2 and EVENTS_PER_RANK 16\n");
    return 2;
  }
  TestArchive a(argv[1], ranks);
  const uint32_t main_region = a.region("main");
  const uint32_t compute = a.region("compute");
  const uint32_t send = a.region("MPI_Send", "mpi");
  const uint32_t recv = a.region("MPI_Recv", "mpi");
  const uint32_t allreduce = a.region("MPI_Allreduce", "mpi");
  const uint32_t bcast = a.region("MPI_Bcast", "mpi");
  const uint32_t reduce = a.region("MPI_Reduce", "mpi");
  const uint32_t barrier = a.region("MPI_Barrier", "mpi");
  const uint32_t scan = a.region("MPI_Scan", "mpi");
  std::vector<uint64_t> t(ranks, 1000), send_enter(ranks, 0);
  for (uint32_t r = 0; r < ranks; ++r) a.rank(r).enter(t[r], main_region);

  const auto do_send = [&](uint32_t r) {
    auto& w = a.rank(r);
    send_enter[r] = t[r] += 5;
    w.enter(t[r], send);
    w.send(t[r] += 1, (r + 1) % ranks, TestArchive::kWorld, 1, 4096);
    w.leave(t[r] += 10, send);
  };
  const auto do_recv = [&](uint32_t r) {
    auto& w = a.rank(r);
    const uint32_t previous = (r + ranks - 1) % ranks;
    w.enter(t[r] += 5, recv);
    t[r] = std::max(t[r], send_enter[previous]) + 20;
    w.recv(t[r], previous, TestArchive::kWorld, 1, 4096);
    w.leave(t[r] += 1, recv);
  };
  // Every rank enters at its own time; all leave after the last one entered.
  const auto collective = [&](uint32_t region, Collective op, uint32_t root) {
    uint64_t latest = 0;
    for (uint32_t r = 0; r < ranks; ++r) latest = std::max(latest, t[r] += 5);
    for (uint32_t r = 0; r < ranks; ++r) {
      auto& w = a.rank(r);
      w.enter(t[r], region);
      w.collective_begin(t[r] + 1);
      t[r] = latest + 30 + r % 3;
      w.collective_end(t[r], op, TestArchive::kWorld, root, 8, 8);
      w.leave(t[r] += 1, region);
    }
  };
  const uint64_t iterations = (events - 2) / 16;
  for (uint64_t i = 0; i < iterations; ++i) {
    for (uint32_t r = 0; r < ranks; ++r) {
      a.rank(r).enter(t[r] += 10, compute);
      a.rank(r).leave(t[r] += 100 + (r * 37 + i * 11) % 97, compute);
    }
    // Even ranks send first, odd ranks receive first: a ring without deadlock.
    for (uint32_t r = 0; r < ranks; r += 2) do_send(r);
    for (uint32_t r = 1; r < ranks; r += 2) do_recv(r);
    for (uint32_t r = 1; r < ranks; r += 2) do_send(r);
    for (uint32_t r = 0; r < ranks; r += 2) do_recv(r);
    collective(allreduce, Collective::kAllreduce, TestArchive::kNoRoot);
    switch (i % 4) {
      case 0: collective(bcast, Collective::kBcast, 0); break;
      case 1: collective(reduce, Collective::kReduce, 0); break;
      case 2: collective(barrier, Collective::kBarrier, TestArchive::kNoRoot); break;
      default: collective(scan, Collective::kScan, TestArchive::kNoRoot); break;
    }
  }
  for (uint32_t r = 0; r < ranks; ++r) a.rank(r).leave(t[r] += 10, main_region);
  a.close();
  return 0;
}

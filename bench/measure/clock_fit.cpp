// How consistent are the timestamps of ranks on one node? (issue 15; prints
// numbers, never a test.)
//
//   mpirun -np 4 build/bench/measure/bench_clock_fit [SECONDS]
//
// 1. Per-rank fits: every rank converts TSC ticks to CLOCK_MONOTONIC ns with
//    its own two (TSC, monotonic) pairs taken SECONDS apart, as the
//    measurement did before one time base per node. At 20 common instants
//    (a TSC value rank 0 broadcasts) each rank converts the same tick count;
//    the spread of the results is the error the fits put between the ranks.
// 2. The node's shared fit (best-of-N bracketed pairs of one rank): by
//    construction the same on every rank; its own uncertainty is printed.
// 3. The TSC itself across cores: one-way TSC differences of a ping-pong in
//    both directions bound the skew between the cores' counters.

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "clock.h"

namespace om = orrery::measure;

namespace {

void spin(double seconds) {
  const uint64_t start = om::monotonic_ns();
  while (static_cast<double>(om::monotonic_ns() - start) < seconds * 1e9) {
  }
}

/// Spread (max - min) over ranks of the ns each rank computes for rank 0's tick counts.
double max_spread(const om::TimeConverter& mine, int rank, int size) {
  double worst = 0;
  for (int k = 0; k < 20; ++k) {
    uint64_t tick = om::now();
    MPI_Bcast(&tick, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    const auto ns = static_cast<double>(mine.to_ns(tick));
    std::vector<double> all(static_cast<std::size_t>(size));
    MPI_Gather(&ns, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      const auto [lo, hi] = std::minmax_element(all.begin(), all.end());
      worst = std::max(worst, *hi - *lo);
    }
  }
  return worst;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const double seconds = argc > 1 ? std::atof(argv[1]) : 2.0;
  if (!om::g_tsc_clock) {
    if (rank == 0) std::printf("no invariant TSC: events are stamped with CLOCK_MONOTONIC, nothing to fit\n");
    MPI_Finalize();
    return 0;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const om::ClockPair own_first = om::ClockPair::sample();
  const om::PreciseClockPair shared_first = om::PreciseClockPair::sample();
  spin(seconds / 2);
  MPI_Barrier(MPI_COMM_WORLD);
  spin(seconds / 2);
  const om::ClockPair own_last = om::ClockPair::sample();
  const om::PreciseClockPair shared_last = om::PreciseClockPair::sample();
  const om::TimeConverter own(own_first, own_last);
  const double rate = static_cast<double>(own_last.ticks - own_first.ticks) /
                      static_cast<double>(own_last.ns - own_first.ns);
  std::vector<double> rates(static_cast<std::size_t>(size));
  MPI_Gather(&rate, 1, MPI_DOUBLE, rates.data(), 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  const double spread_own = max_spread(own, rank, size);

  // Rank 0's precise pairs, shared.
  om::PreciseClockPair shared[2] = {shared_first, shared_last};
  MPI_Bcast(shared, sizeof shared, MPI_BYTE, 0, MPI_COMM_WORLD);
  const om::TimeConverter node(shared[0].pair, shared[1].pair);
  const double spread_node = max_spread(node, rank, size);

  // TSC ping-pong between rank 0 and every other rank: min one-way differences.
  std::vector<double> skew(static_cast<std::size_t>(size)), latency(skew.size());
  for (int peer = 1; peer < size; ++peer) {
    int64_t forward = INT64_MAX, backward = INT64_MAX;
    for (int i = 0; i < 200; ++i) {
      if (rank == 0) {
        uint64_t t = om::now();
        MPI_Send(&t, 1, MPI_UINT64_T, peer, 1, MPI_COMM_WORLD);
        MPI_Recv(&t, 1, MPI_UINT64_T, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        backward = std::min(backward, static_cast<int64_t>(om::now() - t));
      } else if (rank == peer) {
        uint64_t t = 0;
        MPI_Recv(&t, 1, MPI_UINT64_T, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        forward = std::min(forward, static_cast<int64_t>(om::now() - t));
        t = om::now();
        MPI_Send(&t, 1, MPI_UINT64_T, 0, 2, MPI_COMM_WORLD);
      }
    }
    if (rank == peer) MPI_Send(&forward, 1, MPI_INT64_T, 0, 3, MPI_COMM_WORLD);
    if (rank == 0) {
      MPI_Recv(&forward, 1, MPI_INT64_T, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      const double ns_per_tick = 1.0 / rates[0];
      // forward = latency + skew, backward = latency - skew (skew: peer's counter ahead).
      skew[static_cast<std::size_t>(peer)] = 0.5 * static_cast<double>(forward - backward) * ns_per_tick;
      latency[static_cast<std::size_t>(peer)] = 0.5 * static_cast<double>(forward + backward) * ns_per_tick;
    }
  }
  if (rank == 0) {
    std::printf("ranks %d, fit interval %.1f s\n", size, seconds);
    std::printf("per-rank fits: tick rate per rank (GHz):");
    const auto [lo, hi] = std::minmax_element(rates.begin(), rates.end());
    for (double r : rates) std::printf(" %.9f", r);
    std::printf("\n  rate spread %.3g ppm; same tick converted by all ranks: spread up to %.0f ns\n",
                (*hi - *lo) / *lo * 1e6, spread_own);
    std::printf("node fit (rank 0's bracketed pairs, uncertainty %.0f / %.0f ticks): spread %.0f ns\n",
                static_cast<double>(shared[0].uncertainty_ticks),
                static_cast<double>(shared[1].uncertainty_ticks), spread_node);
    for (int peer = 1; peer < size; ++peer) {
      std::printf("TSC rank 0 <-> %d: skew %+.0f ns, one-way latency %.0f ns\n", peer,
                  skew[static_cast<std::size_t>(peer)], latency[static_cast<std::size_t>(peer)]);
    }
  }
  MPI_Finalize();
  return 0;
}

// Writes a large synthetic report for benchmarking the cube tools:
//   bench_report_make_cube OUT.h5 [CALLPATHS [LOCATIONS]]   (default 10000 x 1000)
// 40 metrics with the sparsity of a real analysis: time and visits on every
// call path, the MPI metrics only on MPI call paths, wait states on some of
// those, a few metrics never written (all zero). One metric in memory at a time.

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "orrery/error.h"
#include "orrery/report/hdf5_io.h"

namespace {

using orrery::report::Callpath;
using orrery::report::CubeHeader;
using orrery::report::Location;
using orrery::report::Metric;
using orrery::report::MetricValues;
using orrery::report::Region;

/// A small fast generator (xorshift64*); quality is irrelevant here.
class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed * 2654435761u + 1) {}
  uint64_t next() {
    state_ ^= state_ >> 12;
    state_ ^= state_ << 25;
    state_ ^= state_ >> 27;
    return state_ * 2685821657736338717ull;
  }
  double uniform() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }

 private:
  uint64_t state_;
};

/// Which call paths a metric lives on.
enum class Where { kComputation, kMpi, kWaitStates, kEverywhere, kNowhere };

struct MetricSpec {
  const char* name;
  const char* parent;
  const char* unit;
  Where where;
};

// docs/design.md §4's hierarchy plus extras up to 40 metrics.
const std::vector<MetricSpec> kMetrics = {
    {"time", "", "sec", Where::kComputation},
    {"execution", "time", "sec", Where::kNowhere},
    {"mpi", "execution", "sec", Where::kMpi},
    {"mpi_management", "mpi", "sec", Where::kNowhere},
    {"mpi_init_exit", "mpi_management", "sec", Where::kWaitStates},
    {"mpi_synchronization", "mpi", "sec", Where::kNowhere},
    {"mpi_sync_collective", "mpi_synchronization", "sec", Where::kWaitStates},
    {"wait_at_barrier", "mpi_sync_collective", "sec", Where::kWaitStates},
    {"barrier_completion", "mpi_sync_collective", "sec", Where::kWaitStates},
    {"mpi_rma_synchronization", "mpi_synchronization", "sec", Where::kNowhere},
    {"mpi_communication", "mpi", "sec", Where::kNowhere},
    {"mpi_point2point", "mpi_communication", "sec", Where::kMpi},
    {"late_sender", "mpi_point2point", "sec", Where::kWaitStates},
    {"late_sender_wrong_order", "late_sender", "sec", Where::kWaitStates},
    {"late_receiver", "mpi_point2point", "sec", Where::kWaitStates},
    {"mpi_collective", "mpi_communication", "sec", Where::kMpi},
    {"early_reduce", "mpi_collective", "sec", Where::kWaitStates},
    {"early_scan", "mpi_collective", "sec", Where::kNowhere},
    {"late_broadcast", "mpi_collective", "sec", Where::kWaitStates},
    {"wait_at_nxn", "mpi_collective", "sec", Where::kWaitStates},
    {"nxn_completion", "mpi_collective", "sec", Where::kWaitStates},
    {"mpi_rma_communication", "mpi_communication", "sec", Where::kNowhere},
    {"mpi_io", "mpi", "sec", Where::kWaitStates},
    {"overhead", "time", "sec", Where::kWaitStates},
    {"visits", "", "occ", Where::kEverywhere},
    {"bytes_sent", "", "bytes", Where::kMpi},
    {"bytes_received", "", "bytes", Where::kMpi},
    {"bytes_coll_out", "", "bytes", Where::kMpi},
    {"bytes_coll_in", "", "bytes", Where::kMpi},
    {"sends", "", "occ", Where::kMpi},
    {"receives", "", "occ", Where::kMpi},
    {"collectives", "", "occ", Where::kMpi},
    {"late_sender_count", "", "occ", Where::kWaitStates},
    {"late_receiver_count", "", "occ", Where::kWaitStates},
    {"critical_path", "", "sec", Where::kComputation},
    {"imbalance", "", "sec", Where::kComputation},
    {"delay_costs", "", "sec", Where::kWaitStates},
    {"delay_late_sender", "delay_costs", "sec", Where::kWaitStates},
    {"delay_barrier", "delay_costs", "sec", Where::kWaitStates},
    {"clock_violations", "", "occ", Where::kNowhere},
};

CubeHeader make_header(std::size_t callpaths, std::size_t locations, Random& random) {
  CubeHeader header;
  header.attributes = {"bench_report_make_cube", "synthetic benchmark", ""};
  for (const MetricSpec& spec : kMetrics) {
    int32_t parent = -1;
    for (std::size_t row = 0; row < header.metrics.size(); ++row) {
      if (header.metrics[row].name == spec.parent) {
        parent = static_cast<int32_t>(row);
      }
    }
    header.metrics.push_back({spec.name, spec.name, parent, spec.unit, "synthetic", ""});
  }
  // 200 compiler regions and 20 MPI functions.
  for (int i = 0; i < 200; ++i) {
    header.regions.push_back({"function_" + std::to_string(i), "app.cpp", 10 * i, "compiler"});
  }
  for (const char* mpi : {"MPI_Send", "MPI_Recv", "MPI_Isend", "MPI_Irecv", "MPI_Wait",
                          "MPI_Waitall", "MPI_Barrier", "MPI_Allreduce", "MPI_Bcast",
                          "MPI_Reduce", "MPI_Gather", "MPI_Alltoall", "MPI_Scan", "MPI_Init",
                          "MPI_Finalize", "MPI_File_write", "MPI_File_read", "MPI_Sendrecv",
                          "MPI_Allgather", "MPI_Comm_split"}) {
    header.regions.push_back({mpi, "", 0, "mpi"});
  }
  // A random tree built depth-first so rows come in pre-order; MPI calls are leaves.
  header.callpaths.push_back({-1, 0});
  std::vector<int32_t> stack = {0};
  while (header.callpaths.size() < callpaths) {
    const int32_t parent = stack.back();
    const double draw = random.uniform();
    if (stack.size() > 1 && (draw < 0.25 || stack.size() > 14)) {
      stack.pop_back();
      continue;
    }
    const bool mpi = draw > 0.75;
    const auto region = static_cast<int32_t>(mpi ? 200 + random.next() % 20 : random.next() % 200);
    header.callpaths.push_back({parent, region});
    if (!mpi) {
      stack.push_back(static_cast<int32_t>(header.callpaths.size() - 1));
    }
  }
  for (std::size_t l = 0; l < locations; ++l) {
    const auto rank = static_cast<int32_t>(l);
    header.locations.push_back(
        {rank, 0, "node" + std::to_string(l / 64), "rank " + std::to_string(l)});
  }
  return header;
}

bool lives_on(Where where, bool mpi_callpath, uint64_t callpath_hash) {
  switch (where) {
    case Where::kComputation:
      return !mpi_callpath;
    case Where::kMpi:
      return mpi_callpath;
    case Where::kWaitStates:
      return mpi_callpath && callpath_hash % 3 == 0;
    case Where::kEverywhere:
      return true;
    case Where::kNowhere:
      return false;
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s OUT.h5 [CALLPATHS [LOCATIONS]]\n", argv[0]);
    return 2;
  }
  const std::string path = argv[1];
  const std::size_t callpaths = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 10000;
  const std::size_t locations = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 1000;
  const auto start = std::chrono::steady_clock::now();
  try {
    Random random(42);
    const CubeHeader header = make_header(callpaths, locations, random);
    orrery::report::CubeWriter writer(path, header);
    MetricValues values(callpaths * locations);
    for (std::size_t m = 0; m < kMetrics.size(); ++m) {
      if (kMetrics[m].where == Where::kNowhere) {
        continue;  // never written: stored as zeros without chunks
      }
      const bool whole = kMetrics[m].unit[0] != 's';  // counts and bytes are whole numbers
      for (std::size_t c = 0; c < callpaths; ++c) {
        const bool mpi = header.regions[static_cast<std::size_t>(header.callpaths[c].region)]
                             .paradigm == "mpi";
        double* row = values.data() + c * locations;
        if (!lives_on(kMetrics[m].where, mpi, c * 2654435761u + m)) {
          std::fill(row, row + locations, 0.0);
          continue;
        }
        const double base = random.uniform() * (whole ? 1000.0 : 0.01);
        for (std::size_t l = 0; l < locations; ++l) {
          const double value = base * (0.5 + random.uniform());
          row[l] = whole ? static_cast<double>(static_cast<int64_t>(value)) : value;
        }
      }
      writer.write_metric(m, values);
    }
    writer.close();
  } catch (const orrery::Error& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return 1;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("wrote %s: %zu call paths x %zu locations x %zu metrics in %.1f s\n", path.c_str(),
              callpaths, locations, kMetrics.size(), seconds);
  return 0;
}

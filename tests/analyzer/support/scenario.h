#pragma once
// A hand-built trace for one test: rank 0 writes it with TestArchive, all
// ranks analyze it, rank 0 looks values up in the resulting cube by metric,
// call path (region names joined by '/') and rank.

#include <mpi.h>

#include <functional>
#include <memory>
#include <string>

#include "orrery/analyzer/analysis.h"
#include "orrery/report/cube.h"
#include "test_archive.h"

namespace orrery::testing {

/// World size and rank of the test program.
int world_rank();
int world_size();

/// A fresh directory name shared by all ranks.
std::string shared_temp_dir(const std::string& name);

/// Region ids every scenario has.
struct Regions {
  uint32_t main, work, send, ssend, isend, recv, irecv, wait, waitall, barrier, ibarrier,
      allreduce, iallreduce, bcast, reduce, scan, start, sendrecv, flush;
};
Regions define_regions(TestArchive& archive);

/// Builds the trace on rank 0 (the callback gets the archive and the regions),
/// then every rank analyzes it. Returns the cube on rank 0.
analyzer::AnalysisResult analyze_scenario(
    const std::string& name, const std::function<void(TestArchive&, const Regions&)>& build,
    bool correct_clocks = true, uint64_t location_base = 0);

/// The same with the analysis options adjusted by `configure` (a what-if model, ...).
analyzer::AnalysisResult analyze_scenario_with(
    const std::string& name, const std::function<void(TestArchive&, const Regions&)>& build,
    const std::function<void(analyzer::AnalysisOptions&)>& configure,
    uint64_t location_base = 0);

/// Value of a metric at a call path ("main/MPI_Recv") and rank; 0 if the
/// call path does not exist. Exclusive along both trees, as stored.
double value(const report::Cube& cube, const std::string& metric, const std::string& path,
             int rank);
/// Sum of a metric over all call paths of a rank.
double rank_total(const report::Cube& cube, const std::string& metric, int rank);

/// Writes a region instance [t0, t1] with nothing inside.
void region(TestArchive::Rank& rank, uint32_t region, uint64_t t0, uint64_t t1);
/// A blocking send on the world at `time` (taking no time, 8 bytes, tag 0),
/// and a blocking receive entered at `enter` that gets its message at `exit`.
void world_send(TestArchive::Rank& rank, const Regions& r, uint64_t time, uint32_t peer);
void world_recv(TestArchive::Rank& rank, const Regions& r, uint64_t enter, uint64_t exit,
                   uint32_t peer);

}  // namespace orrery::testing

#include "scenario.h"

#include <filesystem>
#include <unistd.h>

#include <vector>

namespace orrery::testing {

int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

int world_size() {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

std::string shared_temp_dir(const std::string& name) {
  long pid = world_rank() == 0 ? static_cast<long>(getpid()) : 0;
  MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  const auto dir = std::filesystem::temp_directory_path() /
                   ("orrery-analyzer-test-" + std::to_string(pid)) / name;
  if (world_rank() == 0) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir.parent_path());
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return dir.string();
}

Regions define_regions(TestArchive& a) {
  Regions r{};
  r.main = a.region("main");
  r.work = a.region("work");
  r.send = a.region("MPI_Send", "mpi");
  r.ssend = a.region("MPI_Ssend", "mpi");
  r.isend = a.region("MPI_Isend", "mpi");
  r.recv = a.region("MPI_Recv", "mpi");
  r.irecv = a.region("MPI_Irecv", "mpi");
  r.wait = a.region("MPI_Wait", "mpi");
  r.waitall = a.region("MPI_Waitall", "mpi");
  r.barrier = a.region("MPI_Barrier", "mpi");
  r.ibarrier = a.region("MPI_Ibarrier", "mpi");
  r.allreduce = a.region("MPI_Allreduce", "mpi");
  r.iallreduce = a.region("MPI_Iallreduce", "mpi");
  r.bcast = a.region("MPI_Bcast", "mpi");
  r.reduce = a.region("MPI_Reduce", "mpi");
  r.scan = a.region("MPI_Scan", "mpi");
  r.start = a.region("MPI_Start", "mpi");
  r.sendrecv = a.region("MPI_Sendrecv", "mpi");
  r.flush = a.region("ORRERY_FLUSH", "measurement");
  return r;
}

analyzer::AnalysisResult analyze_scenario(
    const std::string& name, const std::function<void(TestArchive&, const Regions&)>& build,
    bool correct_clocks, uint64_t location_base) {
  return analyze_scenario_with(name, build, [&](analyzer::AnalysisOptions& options) {
    options.correct_clock_violations = correct_clocks;
  }, location_base);
}

analyzer::AnalysisResult analyze_scenario_with(
    const std::string& name, const std::function<void(TestArchive&, const Regions&)>& build,
    const std::function<void(analyzer::AnalysisOptions&)>& configure, uint64_t location_base) {
  const std::string dir = shared_temp_dir(name);
  if (world_rank() == 0) {
    TestArchive archive(dir, static_cast<uint32_t>(world_size()), location_base);
    const Regions regions = define_regions(archive);
    build(archive, regions);
    archive.close();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  analyzer::AnalysisOptions options;
  options.experiment = dir;
  options.write_report = false;
  configure(options);
  return analyzer::analyze(options, MPI_COMM_WORLD);
}

namespace {

int find_callpath(const report::Cube& cube, const std::string& path) {
  std::vector<std::string> names;
  std::size_t start = 0;
  while (true) {
    const std::size_t slash = path.find('/', start);
    names.push_back(path.substr(start, slash - start));
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  const auto& h = cube.header;
  for (std::size_t c = 0; c < h.callpaths.size(); ++c) {
    // Walk up from c and compare with names from the end.
    int32_t node = static_cast<int32_t>(c);
    std::size_t depth = names.size();
    bool match = true;
    while (node >= 0 && depth > 0) {
      const auto& cp = h.callpaths[static_cast<std::size_t>(node)];
      if (h.regions[static_cast<std::size_t>(cp.region)].name != names[depth - 1]) {
        match = false;
        break;
      }
      node = cp.parent;
      --depth;
    }
    if (match && node < 0 && depth == 0) return static_cast<int>(c);
  }
  return -1;
}

}  // namespace

double value(const report::Cube& cube, const std::string& metric, const std::string& path,
             int rank) {
  const int callpath = find_callpath(cube, path);
  if (callpath < 0) return 0.0;
  for (std::size_t m = 0; m < cube.header.metrics.size(); ++m) {
    if (cube.header.metrics[m].name == metric) {
      return cube.values[m][static_cast<std::size_t>(callpath) * cube.header.locations.size() +
                            static_cast<std::size_t>(rank)];
    }
  }
  throw std::runtime_error("no metric " + metric);
}

double rank_total(const report::Cube& cube, const std::string& metric, int rank) {
  for (std::size_t m = 0; m < cube.header.metrics.size(); ++m) {
    if (cube.header.metrics[m].name != metric) continue;
    double total = 0;
    const std::size_t n = cube.header.locations.size();
    for (std::size_t c = 0; c < cube.header.callpaths.size(); ++c) {
      total += cube.values[m][c * n + static_cast<std::size_t>(rank)];
    }
    return total;
  }
  throw std::runtime_error("no metric " + metric);
}

void region(TestArchive::Rank& rank, uint32_t region_id, uint64_t t0, uint64_t t1) {
  rank.enter(t0, region_id);
  rank.leave(t1, region_id);
}

void world_send(TestArchive::Rank& rank, const Regions& r, uint64_t time, uint32_t peer) {
  rank.enter(time, r.send);
  rank.send(time, peer, TestArchive::kWorld, 0, 8);
  rank.leave(time, r.send);
}

void world_recv(TestArchive::Rank& rank, const Regions& r, uint64_t enter, uint64_t exit,
                   uint32_t peer) {
  rank.enter(enter, r.recv);
  rank.recv(exit, peer, TestArchive::kWorld, 0, 8);
  rank.leave(exit, r.recv);
}

}  // namespace orrery::testing

// Analyzer benchmark: mpirun -np N analyzer_bench DIR [EVENTS_PER_RANK [SHAPE]]
//
// Rank 0 generates (once) an OTF2 trace of N ranks with EVENTS_PER_RANK
// events each (default 5,000,000; N*EVENTS >= 10 M): nested compute regions,
// a ring exchange of messages every iteration and an Allreduce every 16th.
// SHAPE "communication" leaves the compute regions out: every event is then
// communication or an MPI call, the worst case for the analyzer (nothing can
// be folded while reading). Use another DIR per shape.
// Then every rank
//   1. reads its location with OTF2 and callbacks that do nothing (plain read:
//      the physical limit of libotf2), and with Orrery's own OTF2 event
//      decoder into a sink that only counts (the decoder's floor, what the
//      analyzer reads with where the archive qualifies),
//   2. runs the whole analysis (read, correct, call tree, the replays,
//      patterns, merge, report written by rank 0) in three configurations,
//      twice each (the faster counts): "wait states" (the delay analysis, the
//      critical path and the ideal-network replay off: issue 9's <= 1.5x the
//      plain read), "+ causes" (delay analysis and critical path on: issue
//      10's >= 10 M events/s per rank) and "all on" (the default, adding the
//      ideal-network replay behind the POP efficiencies),
// and the benchmark prints per configuration the slowest rank's events/s
// (wall clock and CPU time), the largest ratio to the plain read (the
// physical limit of libotf2) and to the decoder alone (the analyzer's own
// floor) and the peak memory growth per event; then the delay
// analysis' wait states and propagation rounds.

#include <mpi.h>
#include <otf2/otf2.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "orrery/analyzer/analysis.h"
#include "orrery/trace/trace_reader.h"
#include "test_archive.h"

namespace {

using orrery::testing::Collective;
using orrery::testing::TestArchive;

/// Writes a causally consistent trace (no receive ends before its send
/// began), as a real measurement on synchronized clocks would.
void generate(const std::string& dir, uint32_t ranks, uint64_t events_per_rank,
              bool with_compute) {
  TestArchive a(dir, ranks);
  const uint32_t main_region = a.region("main");
  const uint32_t solve = a.region("solve");
  const uint32_t kernel = a.region("kernel");
  const uint32_t flux = a.region("flux");
  const uint32_t send = a.region("MPI_Send", "mpi");
  const uint32_t recv = a.region("MPI_Recv", "mpi");
  const uint32_t allreduce = a.region("MPI_Allreduce", "mpi");
  // Per iteration and rank: solve{kernel{flux x3} kernel} = 12 events, a send
  // and a receive in a ring (3 + 3), and every 16th iteration an Allreduce (4).
  const uint64_t iterations = events_per_rank / (with_compute ? 18 : 6);
  std::vector<uint64_t> t(ranks, 1000), send_enter(ranks, 0);
  for (uint32_t r = 0; r < ranks; ++r) a.rank(r).enter(t[r], main_region);
  auto compute = [&](uint32_t r, uint64_t i) {
    if (!with_compute) return;
    auto& w = a.rank(r);
    w.enter(t[r] += 10, solve);
    w.enter(t[r] += 10, kernel);
    for (int f = 0; f < 3; ++f) {
      w.enter(t[r] += 10, flux);
      w.leave(t[r] += 50 + (r * 7 + i * 3 + static_cast<uint64_t>(f)) % 23, flux);
    }
    w.leave(t[r] += 20, kernel);
    w.enter(t[r] += 10, kernel);
    w.leave(t[r] += 20, kernel);
    w.leave(t[r] += 10, solve);
  };
  auto do_send = [&](uint32_t r) {
    auto& w = a.rank(r);
    send_enter[r] = t[r] += 5;
    w.enter(t[r], send);
    w.send(t[r] += 1, (r + 1) % ranks, TestArchive::kWorld, 1, 4096);
    w.leave(t[r] += 10, send);
  };
  auto do_recv = [&](uint32_t r) {
    auto& w = a.rank(r);
    const uint32_t prev = (r + ranks - 1) % ranks;
    w.enter(t[r] += 5, recv);
    t[r] = std::max(t[r], send_enter[prev]) + 20;
    w.recv(t[r], prev, TestArchive::kWorld, 1, 4096);
    w.leave(t[r] += 1, recv);
  };
  for (uint64_t i = 0; i < iterations; ++i) {
    for (uint32_t r = 0; r < ranks; ++r) compute(r, i);
    // Even ranks send first, odd ranks receive first: a ring without deadlock.
    for (uint32_t r = 0; r < ranks; r += 2) do_send(r);
    for (uint32_t r = 1; r < ranks; r += 2) do_recv(r);
    for (uint32_t r = 1; r < ranks; r += 2) do_send(r);
    for (uint32_t r = 0; r < ranks; r += 2) do_recv(r);
    if (i % 16 == 15) {
      uint64_t latest = 0;
      for (uint32_t r = 0; r < ranks; ++r) latest = std::max(latest, t[r] += 5);
      for (uint32_t r = 0; r < ranks; ++r) {
        auto& w = a.rank(r);
        w.enter(t[r], allreduce);
        w.collective_begin(t[r] + 1);
        t[r] = latest + 30;
        w.collective_end(t[r], Collective::kAllreduce, TestArchive::kWorld,
                         TestArchive::kNoRoot, 8, 8);
        w.leave(t[r] += 1, allreduce);
      }
    }
  }
  for (uint32_t r = 0; r < ranks; ++r) a.rank(r).leave(t[r] += 10, main_region);
  a.close();
}

OTF2_CallbackCode noop_enter_leave(OTF2_LocationRef, OTF2_TimeStamp, uint64_t, void*,
                                   OTF2_AttributeList*, OTF2_RegionRef) {
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode noop_message(OTF2_LocationRef, OTF2_TimeStamp, uint64_t, void*,
                               OTF2_AttributeList*, uint32_t, OTF2_CommRef, uint32_t, uint64_t) {
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode noop_begin(OTF2_LocationRef, OTF2_TimeStamp, uint64_t, void*,
                             OTF2_AttributeList*) {
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode noop_end(OTF2_LocationRef, OTF2_TimeStamp, uint64_t, void*, OTF2_AttributeList*,
                           OTF2_CollectiveOp, OTF2_CommRef, uint32_t, uint64_t, uint64_t) {
  return OTF2_CALLBACK_SUCCESS;
}

/// Reads rank `rank`'s events with callbacks that do nothing; returns the event count.
uint64_t plain_read(const std::string& dir, uint64_t location) {
  OTF2_Reader* reader = OTF2_Reader_Open((dir + "/traces.otf2").c_str());
  OTF2_Reader_SetSerialCollectiveCallbacks(reader);
  OTF2_Reader_SelectLocation(reader, location);
  OTF2_Reader_OpenEvtFiles(reader);
  OTF2_EvtReader* evt = OTF2_Reader_GetEvtReader(reader, location);
  OTF2_EvtReaderCallbacks* cbs = OTF2_EvtReaderCallbacks_New();
  OTF2_EvtReaderCallbacks_SetEnterCallback(cbs, noop_enter_leave);
  OTF2_EvtReaderCallbacks_SetLeaveCallback(cbs, noop_enter_leave);
  OTF2_EvtReaderCallbacks_SetMpiSendCallback(cbs, noop_message);
  OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cbs, noop_message);
  OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(cbs, noop_begin);
  OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(cbs, noop_end);
  OTF2_Reader_RegisterEvtCallbacks(reader, evt, cbs, nullptr);
  OTF2_EvtReaderCallbacks_Delete(cbs);
  uint64_t count = 0;
  if (OTF2_Reader_ReadAllLocalEvents(reader, evt, &count) != OTF2_SUCCESS) {
    std::fprintf(stderr, "analyzer_bench: plain read failed\n");
  }
  OTF2_Reader_CloseEvtReader(reader, evt);
  OTF2_Reader_CloseEvtFiles(reader);
  OTF2_Reader_Close(reader);
  return count;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

long minor_page_faults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

double cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
}

/// A field of /proc/self/status in KiB ("VmRSS", "VmHWM"); -1 if absent.
long status_kib(const std::string& field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.compare(0, field.size() + 1, field + ":") == 0) {
      return std::strtol(line.c_str() + field.size() + 1, nullptr, 10);
    }
  }
  return -1;
}

/// One timed analysis: wall and CPU seconds, its result, and its peak RSS
/// over `rss_baseline` (KiB, the RSS before any analysis), in bytes: the
/// peak is reset before the run (clear_refs 5), so an earlier, larger run
/// does not count (memory an earlier run left to the allocator is reused).
struct Run {
  orrery::analyzer::AnalysisResult result;
  double wall = 0;
  double cpu = 0;
  double peak_bytes = 0;
  long page_faults = 0;  // minor faults during the run: fresh pages it touched
};

/// Which analyses run beside the wait states.
struct Configuration {
  const char* name;
  bool delay_analysis;
  bool critical_path;
  bool ideal_replay;
};
constexpr Configuration kConfigurations[] = {
    {"wait states", false, false, false},
    {"+ causes", true, true, false},
    {"all on", true, true, true},
};

Run timed_analysis(orrery::analyzer::AnalysisOptions options, const Configuration& configuration,
                   long rss_baseline) {
  options.delay_analysis = configuration.delay_analysis;
  options.critical_path = configuration.critical_path;
  options.ideal_replay = configuration.ideal_replay;
  MPI_Barrier(MPI_COMM_WORLD);
  std::ofstream("/proc/self/clear_refs") << "5";
  Run run;
  const auto start = std::chrono::steady_clock::now();
  const double cpu_start = cpu_seconds();
  const long faults_start = minor_page_faults();
  run.result = orrery::analyzer::analyze(options, MPI_COMM_WORLD);
  run.page_faults = minor_page_faults() - faults_start;
  run.wall = seconds_since(start);
  run.cpu = cpu_seconds() - cpu_start;
  run.peak_bytes = static_cast<double>(std::max(0L, status_kib("VmHWM") - rss_baseline)) * 1024.0;
  return run;
}

/// The fastest of `count` (>= 2) runs (the first of them pays the cold
/// start), with the largest peak of them; `slowest_walls` gets each later
/// run's wall time on the slowest rank (for the median over the warm runs).
Run best_of(const orrery::analyzer::AnalysisOptions& options, const Configuration& configuration,
            long rss_baseline, int count, std::vector<double>& slowest_walls) {
  Run best;
  double peak = 0;
  slowest_walls.clear();
  for (int i = 0; i < count; ++i) {
    Run run = timed_analysis(options, configuration, rss_baseline);
    double slowest = run.wall;
    MPI_Allreduce(MPI_IN_PLACE, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (i > 0) slowest_walls.push_back(slowest);
    peak = std::max(peak, run.peak_bytes);
    if (i == 0 || run.wall <= best.wall) best = std::move(run);
  }
  best.peak_bytes = peak;
  return best;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 2) {
    if (rank == 0) {
      std::fprintf(stderr,
                   "usage: mpirun -np N analyzer_bench DIR [EVENTS_PER_RANK [mixed|communication]]\n");
    }
    MPI_Finalize();
    return 2;
  }
  const std::string dir = argv[1];
  const uint64_t per_rank = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 5000000;
  const std::string shape = argc > 3 ? argv[3] : "mixed";
  if (shape != "mixed" && shape != "communication") {
    if (rank == 0) std::fprintf(stderr, "analyzer_bench: SHAPE is mixed or communication\n");
    MPI_Finalize();
    return 2;
  }
  if (rank == 0 && !std::filesystem::exists(dir + "/traces.otf2")) {
    const auto start = std::chrono::steady_clock::now();
    generate(dir, static_cast<uint32_t>(size), per_rank, shape == "mixed");
    std::printf("generated %s in %.1f s\n", dir.c_str(), seconds_since(start));
  }
  MPI_Barrier(MPI_COMM_WORLD);

  // A read, twice (the first warms the page cache); the faster counts
  // (wall and CPU seconds).
  auto faster_of_two = [](auto&& read, double& wall, double& cpu) {
    wall = cpu = 1e30;
    for (int i = 0; i < 2; ++i) {
      MPI_Barrier(MPI_COMM_WORLD);
      const auto start = std::chrono::steady_clock::now();
      const double cpu_start = cpu_seconds();
      read();
      wall = std::min(wall, seconds_since(start));
      cpu = std::min(cpu, cpu_seconds() - cpu_start);
    }
  };
  double plain = 0, plain_cpu = 0;
  uint64_t plain_events = 0;
  faster_of_two([&] { plain_events = plain_read(dir, static_cast<uint64_t>(rank)); }, plain, plain_cpu);
  // Orrery's decoder alone (-1 events: it would leave the file to libotf2).
  double decoder = 0, decoder_cpu = 0;
  int64_t decoder_events = 0;
  faster_of_two([&] { decoder_events = orrery::analyzer::count_location_events(dir, static_cast<uint64_t>(rank)); },
                decoder, decoder_cpu);

  // Each configuration, the fastest of its runs.
  orrery::analyzer::AnalysisOptions options;
  options.experiment = dir;
  const long rss_baseline = status_kib("VmRSS");
  // ORRERY_BENCH_CONFIGURATIONS=N runs only the first N configurations (1:
  // the wait states alone, e.g. under a profiler).
  const char* only = std::getenv("ORRERY_BENCH_CONFIGURATIONS");
  const std::size_t configurations = std::clamp<std::size_t>(
      only != nullptr ? std::strtoul(only, nullptr, 10) : std::size(kConfigurations), 1,
      std::size(kConfigurations));
  // ORRERY_BENCH_RUNS=N (default 2, at least 2) runs each configuration N
  // times: the fastest counts, and the median over the warm runs (all but
  // the first) is printed too (on a shared host the spread between runs can
  // exceed a change's gain).
  const char* runs_text = std::getenv("ORRERY_BENCH_RUNS");
  const int runs_per_configuration =
      std::max(2, runs_text != nullptr ? std::atoi(runs_text) : 2);
  std::vector<Run> runs;
  std::vector<std::vector<double>> slowest_walls(configurations);
  for (std::size_t c = 0; c < configurations; ++c) {
    runs.push_back(best_of(options, kConfigurations[c], rss_baseline, runs_per_configuration,
                           slowest_walls[c]));
  }
  const Run& all_on = runs.back();
  uint64_t total = 0, kept = 0, wait_states = 0;
  MPI_Reduce(&all_on.result.events, &total, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&all_on.result.events_kept, &kept, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&all_on.result.delay.wait_states, &wait_states, 1, MPI_UINT64_T, MPI_SUM, 0,
             MPI_COMM_WORLD);
  double plain_rate = static_cast<double>(plain_events) / plain;
  MPI_Allreduce(MPI_IN_PLACE, &plain_rate, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  double decoder_rate = static_cast<double>(decoder_events) / decoder;
  MPI_Allreduce(MPI_IN_PLACE, &decoder_rate, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  if (rank == 0) {
    std::printf("\nanalyzer benchmark (%s trace): %llu events on %d ranks, %llu (%.0f %%) kept "
                "for the replays, the rest folded while reading\n",
                shape.c_str(), static_cast<unsigned long long>(total), size,
                static_cast<unsigned long long>(kept),
                100.0 * static_cast<double>(kept) / static_cast<double>(total));
    std::printf("plain OTF2 read (the physical limit of libotf2): %.3e events/s on the slowest rank\n",
                plain_rate);
    if (decoder_rate > 0) {
      std::printf("Orrery's OTF2 decoder alone (the analyzer's reading floor): %.3e events/s on the "
                  "slowest rank\n", decoder_rate);
    } else {
      std::printf("Orrery's OTF2 decoder alone: does not qualify for this archive (libotf2 reads it)\n");
    }
    std::printf("%-12s %13s %13s %11s %11s %10s %10s\n", "analyses", "ev/s (wall)", "ev/s (CPU)",
                "x plain", "x plain CPU", "x decoder", "B/event");
  }
  if (std::getenv("ORRERY_BENCH_PER_RANK") != nullptr) {  // each rank's own times, to stderr
    std::fprintf(stderr, "rank %d: plain read %.3f s (CPU %.3f); decoder alone %.3f s (CPU %.3f)", rank, plain,
                 plain_cpu, decoder, decoder_cpu);
    for (std::size_t c = 0; c < runs.size(); ++c) {
      std::fprintf(stderr, "; %s %.3f s (CPU %.3f, %ld page faults)", kConfigurations[c].name,
                   runs[c].wall, runs[c].cpu, runs[c].page_faults);
    }
    std::fprintf(stderr, "\n");
  }
  for (std::size_t c = 0; c < runs.size(); ++c) {
    const Run& run = runs[c];
    const auto events = static_cast<double>(run.result.events);
    // Slowest rank: the smallest rates, the largest ratios and memory.
    double lowest[2] = {events / run.wall, events / run.cpu};
    double highest[4] = {run.wall / plain, run.cpu / plain_cpu, run.peak_bytes / events, run.wall / decoder};
    MPI_Allreduce(MPI_IN_PLACE, lowest, 2, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, highest, 4, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0) {
      std::printf("%-12s %13.3e %13.3e %11.2f %11.2f %10.2f %10.1f\n", kConfigurations[c].name,
                  lowest[0], lowest[1], highest[0], highest[1], highest[3], highest[2]);
    }
  }
  if (rank == 0) {
    std::printf("median of the %d warm runs, slowest rank, events/s (wall):",
                runs_per_configuration - 1);
    for (std::size_t c = 0; c < runs.size(); ++c) {
      std::printf(" %s %.3e%s", kConfigurations[c].name,
                  static_cast<double>(runs[c].result.events) / median(slowest_walls[c]),
                  c + 1 < runs.size() ? ";" : "\n");
    }
    std::printf("(per configuration the slowest rank: its events/s by wall clock and by CPU\n"
                " time, which the load of a shared machine inflates less; \"x plain\": analysis\n"
                " time / plain read of the same events; \"x decoder\": analysis time / Orrery's\n"
                " decoder alone; B/event: peak RSS growth per event)\n");
    std::printf("targets: wait states <= 1.5x plain (issue 9); >= 10e6 events/s per rank with\n"
                "the causes on (issue 10); <= 64 B/event\n");
    std::printf("delay analysis: %llu wait states, %llu propagation rounds%s\n",
                static_cast<unsigned long long>(wait_states),
                static_cast<unsigned long long>(all_on.result.delay.rounds),
                all_on.result.delay.converged ? "" : " (round limit reached)");
  }
  MPI_Finalize();
  return 0;
}

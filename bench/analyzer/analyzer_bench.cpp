// Analyzer benchmark: mpirun -np N analyzer_bench DIR [EVENTS_PER_RANK]
//
// Rank 0 generates (once) an OTF2 trace of N ranks with EVENTS_PER_RANK
// events each (default 5,000,000; N*EVENTS >= 10 M): nested compute regions,
// a ring exchange of messages every iteration and an Allreduce every 16th.
// Then every rank
//   1. reads its location with OTF2 and callbacks that do nothing (plain read),
//   2. runs the whole analysis (read, correct, call tree, three replays,
//      patterns, merge, report written by rank 0),
// and the benchmark prints events/s per analysis rank, the ratio to the
// plain read, and the analysis' peak memory growth per event.

#include <mpi.h>
#include <otf2/otf2.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "orrery/analyzer/analysis.h"
#include "test_archive.h"

namespace {

using orrery::testing::Collective;
using orrery::testing::TestArchive;

void generate(const std::string& dir, uint32_t ranks, uint64_t events_per_rank) {
  TestArchive a(dir, ranks);
  const uint32_t main_region = a.region("main");
  const uint32_t solve = a.region("solve");
  const uint32_t kernel = a.region("kernel");
  const uint32_t flux = a.region("flux");
  const uint32_t send = a.region("MPI_Send", "mpi");
  const uint32_t recv = a.region("MPI_Recv", "mpi");
  const uint32_t allreduce = a.region("MPI_Allreduce", "mpi");
  // Per iteration: solve{kernel{flux x3} kernel} = 12 events, send 3, recv 3,
  // and every 16th an Allreduce (4).
  const uint64_t iterations = events_per_rank / 18;
  for (uint32_t r = 0; r < ranks; ++r) {
    auto& w = a.rank(r);
    uint64_t t = 1000;
    w.enter(t, main_region);
    const uint32_t next = (r + 1) % ranks, prev = (r + ranks - 1) % ranks;
    for (uint64_t i = 0; i < iterations; ++i) {
      w.enter(t += 10, solve);
      for (int k = 0; k < 2; ++k) {
        w.enter(t += 10, kernel);
        for (int f = 0; f < (k == 0 ? 3 : 0); ++f) {
          w.enter(t += 10, flux);
          w.leave(t += 50 + (r * 7 + i) % 13, flux);
        }
        w.leave(t += 20, kernel);
      }
      w.leave(t += 10, solve);
      // Even ranks send first, odd ranks receive first: a ring without deadlock.
      auto do_send = [&] {
        w.enter(t += 5, send);
        w.send(t += 1, next, TestArchive::kWorld, 1, 4096);
        w.leave(t += 10, send);
      };
      auto do_recv = [&] {
        w.enter(t += 5, recv);
        w.recv(t += 20, prev, TestArchive::kWorld, 1, 4096);
        w.leave(t += 1, recv);
      };
      if (r % 2 == 0) {
        do_send();
        do_recv();
      } else {
        do_recv();
        do_send();
      }
      if (i % 16 == 15) {
        w.enter(t += 5, allreduce);
        w.collective_begin(t += 1);
        w.collective_end(t += 30, Collective::kAllreduce, TestArchive::kWorld,
                         TestArchive::kNoRoot, 8, 8);
        w.leave(t += 1, allreduce);
      }
    }
    w.leave(t += 10, main_region);
  }
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

long max_rss_kib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 2) {
    if (rank == 0) std::fprintf(stderr, "usage: mpirun -np N analyzer_bench DIR [EVENTS_PER_RANK]\n");
    MPI_Finalize();
    return 2;
  }
  const std::string dir = argv[1];
  const uint64_t per_rank = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 5000000;
  if (rank == 0 && !std::filesystem::exists(dir + "/traces.otf2")) {
    const auto start = std::chrono::steady_clock::now();
    generate(dir, static_cast<uint32_t>(size), per_rank);
    std::printf("generated %s in %.1f s\n", dir.c_str(), seconds_since(start));
  }
  MPI_Barrier(MPI_COMM_WORLD);

  // Plain read, twice (the first warms the page cache); the faster counts.
  double plain = 1e30;
  uint64_t plain_events = 0;
  for (int i = 0; i < 2; ++i) {
    MPI_Barrier(MPI_COMM_WORLD);
    const auto start = std::chrono::steady_clock::now();
    plain_events = plain_read(dir, static_cast<uint64_t>(rank));
    plain = std::min(plain, seconds_since(start));
  }

  MPI_Barrier(MPI_COMM_WORLD);
  const long rss_before = max_rss_kib();
  orrery::analyzer::AnalysisOptions options;
  options.experiment = dir;
  const auto start = std::chrono::steady_clock::now();
  const auto result = orrery::analyzer::analyze(options, MPI_COMM_WORLD);
  const double analysis = seconds_since(start);
  const long rss_after = max_rss_kib();
  const double bytes_per_event =
      static_cast<double>(rss_after - rss_before) * 1024.0 / static_cast<double>(result.events);

  double mine[4] = {static_cast<double>(result.events) / analysis, analysis / plain,
                    bytes_per_event, static_cast<double>(plain_events) / plain};
  double all[4 * 64] = {};
  MPI_Gather(mine, 4, MPI_DOUBLE, all, 4, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  uint64_t total = 0;
  MPI_Reduce(&result.events, &total, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    std::printf("\nanalyzer benchmark: %llu events on %d ranks\n",
                static_cast<unsigned long long>(total), size);
    std::printf("%-5s %16s %16s %12s %14s\n", "rank", "analysis ev/s", "plain read ev/s",
                "ratio", "peak B/event");
    for (int r = 0; r < std::min(size, 64); ++r) {
      const double* v = all + 4 * r;
      std::printf("%-5d %16.3e %16.3e %12.2f %14.1f\n", r, v[0], v[3], v[1], v[2]);
    }
    std::printf("targets: >= 5e6 events/s per rank, ratio <= 2.5, <= 64 B/event\n");
  }
  MPI_Finalize();
  return 0;
}

#pragma once
// Writes the OTF2 archive EXP/traces.otf2 at MPI_Finalize: every rank its
// events with global ids and its clock offsets, rank 0 the global definitions.
// The only place on the writing side that includes OTF2.

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "clock.h"
#include "event_buffer.h"
#include "unify.h"

namespace orrery::measure {

/// One clock-offset measurement against rank 0.
struct ClockOffset {
  uint64_t time = 0;    ///< local timestamp
  int64_t offset = 0;   ///< rank-0 time - local time, ns
  double stddev = 0.0;  ///< half the best round trip, seconds
};

/// A thread's events: written as OTF2 location `thread << 32 | rank`.
struct ThreadTrace {
  uint32_t thread = 0;  ///< 1, 2, ... (0 is the MPI thread)
  const EventBuffer* buffer = nullptr;
};

/// OTF2 location id of thread `thread` of world rank `rank` (thread 0: the rank itself).
inline uint64_t thread_location(int rank, uint32_t thread) noexcept {
  return (uint64_t{thread} << 32) | static_cast<uint32_t>(rank);
}

/// What the writer needs.
struct TraceInput {
  std::string directory;
  /// Over all ranks (the measurement's own). MPI_COMM_NULL: a rank-local
  /// archive written without any MPI call (emergency path, see local_trace.cpp).
  MPI_Comm comm = MPI_COMM_NULL;
  int location = 0;  ///< world rank (used when comm is MPI_COMM_NULL)
  const EventBuffer* buffer = nullptr;
  const IdMapping* mapping = nullptr;
  const GlobalDefinitions* global = nullptr;  ///< rank 0
  std::vector<ClockOffset> offsets;  ///< times in monotonic ns
  TimeConverter clock;               ///< event clock -> monotonic ns
  uint64_t monotonic_anchor = 0;  ///< a CLOCK_MONOTONIC time ...
  uint64_t realtime_anchor = 0;   ///< ... and the CLOCK_REALTIME time it corresponds to
  /// The program root region (local id): OTF2 ProgramBegin is written with
  /// its Enter and ProgramEnd with its Leave, naming `program` (global
  /// string 0: rank 0's program name in a unified archive).
  uint32_t root_region = UINT32_MAX;
  std::string program;
  /// Local region id of each OpenMP region (index = id - kOmpRegionBase,
  /// thread_locations.h); empty if there are none.
  std::vector<uint32_t> omp_regions;
  /// The process's other threads: each is written as a location of its own
  /// in the process's location group (id: thread << 32 | rank).
  std::vector<ThreadTrace> threads;
};

/// What the writer reports.
struct TraceOutput {
  uint64_t events = 0;               ///< of every location of the rank
  uint64_t thread_events = 0;        ///< of those, on the threads other than the MPI thread
  uint64_t otf2_errors = 0;
  uint64_t clamped_timestamps = 0;  ///< events written at the previous event's time
  uint64_t samples = 0;             ///< Metric events (resource samples) written
};

/// Collective over `in.comm` (none if it is MPI_COMM_NULL). False if anything went wrong on this rank.
bool write_trace(const TraceInput& in, TraceOutput& out) noexcept;

}  // namespace orrery::measure

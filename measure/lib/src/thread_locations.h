#pragma once
// One trace location per OpenMP worker thread. The MPI thread (the one that
// called MPI_Init, thread 0) records into the process's buffer as before
// (recorder.h); every other thread the OpenMP runtime starts gets a
// WorkerLocation of its own at its thread-begin callback: its own event
// buffer and region stack, written only by that thread, so the event path
// takes no lock. The registry of locations and the table of OpenMP regions
// take a mutex, but only when a thread starts or first meets a construct.
//
// OpenMP regions are defined by any thread, while the MPI thread defines its
// own regions without a lock; so they live in a table of their own with ids
// from kOmpRegionBase up, and are appended to the process's definitions at
// MPI_Finalize (define_omp_regions), when the trace writer translates them.

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "definitions.h"
#include "event_buffer.h"
#include "recorder.h"

namespace orrery::measure {

/// Region ids at and above this one name OpenMP regions (kOmpRegionBase + table index).
inline constexpr uint32_t kOmpRegionBase = 0x40000000u;
/// At most this many distinct OpenMP regions (construct × code address); more share one.
inline constexpr uint32_t kMaxOmpRegions = 8192;

/// A worker thread's own location: written only by that thread while it
/// records, read by the MPI thread at MPI_Finalize. Cache-line aligned, as
/// its buffer is: two threads' locations never share a line (false sharing
/// made a thread's Enter+Leave pair 20 times dearer with 4 threads).
struct alignas(64) WorkerLocation {
  uint32_t thread = 0;  ///< its OpenMP thread number (0 is the MPI thread); see number_worker_thread
  bool numbered = false;  ///< `thread` is the OpenMP thread number, not the start order
  std::unique_ptr<EventBuffer> buffer;
  RegionStack stack;
  uint64_t unmatched_leaves = 0;
  uint64_t mpi_calls = 0;  ///< MPI calls this thread made (recorded as regions)
};

/// This thread's worker location (null on the MPI thread and on threads the
/// OpenMP runtime did not start).
extern constinit thread_local WorkerLocation* t_worker __attribute__((tls_model("initial-exec")));
/// Worker threads record: between MPI_Init and MPI_Finalize of a measured
/// run in trace mode with OpenMP measurement on.
extern std::atomic<bool> g_workers_record;

/// True when this (worker) thread records right now.
inline bool worker_records() noexcept {
  return t_worker != nullptr && g_workers_record.load(std::memory_order_relaxed);
}

__attribute__((always_inline)) inline void worker_enter(WorkerLocation& w, uint32_t region, uint64_t time) noexcept {
  w.buffer->enter(time, region);
  w.stack.push_back(region);
}

/// Leave of `region` if it is the innermost open one (else counted).
__attribute__((always_inline)) inline void worker_leave(WorkerLocation& w, uint32_t region, uint64_t time) noexcept {
  if (w.stack.empty() || w.stack.back() != region) {
    ++w.unmatched_leaves;
    return;
  }
  w.stack.pop_back();
  w.buffer->leave(time, region);
}

/// Makes the calling thread a worker location (thread-begin callback); null
/// if its buffer cannot be allocated (its events are then not recorded).
WorkerLocation* register_worker_thread() noexcept;
/// Gives the calling worker its OpenMP thread number `index` (its first
/// implicit task's index in its team) as location number, in place of the
/// start order it got at thread begin (threads start in any order); a worker
/// already holding that number swaps with it, so numbers stay unique. Once
/// per worker; only numbers are exchanged, read when the trace is written.
void number_worker_thread(uint32_t index) noexcept;
/// The worker locations made so far, in thread order.
std::vector<WorkerLocation*> worker_locations();
/// Leaves the regions still open on every worker, at `time` (MPI_Finalize,
/// after g_workers_record was cleared: the workers no longer write).
void close_worker_regions(uint64_t time) noexcept;

/// What a region of the shared table stands for (before its name is
/// resolved): an OpenMP construct, or an MPI function called on a worker thread.
struct OmpConstruct {
  const char* name = "";  ///< "!$omp parallel", "!$omp critical sblock", ... or "MPI_Send"
  RegionRole role = RegionRole::kFunction;
  Paradigm paradigm = Paradigm::kOpenmp;  ///< kMpi: named as is, no code address
};

/// Region id (kOmpRegionBase + n) of `construct` at code address `codeptr`,
/// defined on the first use by any thread (a thread-local cache avoids the
/// lock afterwards).
uint32_t omp_region(const OmpConstruct& construct, const void* codeptr) noexcept;
/// Role of an OpenMP region id (kArtificial for ids that are none).
RegionRole omp_region_role(uint32_t region) noexcept;
/// The code address an OpenMP region was defined with (null if none).
const void* omp_region_codeptr(uint32_t region) noexcept;
/// Number of OpenMP regions defined so far.
uint32_t omp_region_count() noexcept;

/// At MPI_Finalize: appends the OpenMP regions, named "<construct> @<file>:<line>"
/// (or "@<function>") from debug information, to `definitions`; returns the
/// local id of each, by table index (trace_writer.h: TraceInput::omp_regions).
std::vector<uint32_t> define_omp_regions(LocalDefinitions& definitions);

/// "file.c:12" (base name) or the function's name at `address`, "" if unknown (libdw).
std::string describe_code_address(const void* address);

}  // namespace orrery::measure

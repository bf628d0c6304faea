// The OpenMP tool interface (OMPT, OpenMP 5.0 §4): the runtime calls
// ompt_start_tool when it initializes; the callbacks registered here record
// OpenMP constructs as regions of paradigm OpenMP on the thread's own
// location (thread_locations.h), as Score-P names them:
//
//   parallel_begin/end    ThreadFork/ThreadJoin on the encountering thread
//   implicit_task         "!$omp parallel" on each thread of the team
//   work                  "!$omp for", "!$omp sections", "!$omp single", ...
//   sync_region           "!$omp barrier", "!$omp implicit barrier", "!$omp taskwait", ...
//   mutex_acquire/d/released  "!$omp critical" from the request to the release,
//                         with "!$omp critical sblock" inside it while held
//                         (their difference is the wait for the lock);
//                         "omp_set_lock" from a lock's request until it is held.
//   task_create           "!$omp create task" (an instance of no duration: OMPT
//                         reports a moment) on the creating thread
//   task_schedule         "!$omp task" on the thread that runs an explicit task,
//                         from its first schedule to its completion; a task
//                         suspended (taskwait, taskyield) stays open, and
//                         what the thread runs meanwhile nests inside it
//
// Nothing is recorded outside MPI_Init..MPI_Finalize, in profile mode, or
// with ORRERY_OPENMP=0 (orrery run --no-openmp), where no callback is even
// registered. No callback throws, prints or takes a lock after a thread's
// first encounter of a construct.

#include <omp-tools.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <string>

#include "clock.h"
#include "export.h"
#include "ompt_state.h"
#include "recorder.h"
#include "team_ends.h"
#include "thread_locations.h"

namespace orrery::measure {
namespace {

std::atomic<bool> g_tool_active{false};
std::string g_runtime_version;

// LLVM's runtime reports the end of a worker's implicit barrier at the end
// of a parallel region (and the end of its implicit task) only when the
// worker is woken for the next parallel region, or never after the last.
// The team was done when the MPI thread's implicit task ended: a worker's
// barrier ends then, unless it reports an earlier time itself.
std::atomic<uint64_t> g_team_end{0};
/// When this worker entered its current implicit barrier (0: none open).
thread_local uint64_t t_barrier_enter = 0;
/// The end time given to this worker's last implicit barrier (its implicit task ends then too).
thread_local uint64_t t_barrier_end = 0;

/// Parallel regions this thread's implicit tasks are nested in (0 outside any).
thread_local uint32_t t_level = 0;

/// Nested teams: their masters' implicit task ends (team_ends.h); per level
/// of this thread (up to kTrackedLevels) the team it serves and whether it
/// is that team's master; the team and level of its open implicit barrier.
TeamEnds g_nested_team_ends;
constexpr uint32_t kTrackedLevels = 8;
thread_local uint64_t t_teams[kTrackedLevels] = {};
thread_local bool t_team_master[kTrackedLevels] = {};
thread_local uint64_t t_barrier_team = 0;
thread_local uint32_t t_barrier_level = 0;

// A parallel region's OMPT data (shared by every implicit task of its team):
// bits 0-15 its region's table index + 1 (0: none), bits 16-23 its nesting
// level (1: the outermost team), bits 24-63 its team id, unique in the
// process (written with the implicit task's Enter: docs/openmp.md).
std::atomic<uint64_t> g_next_team{1};
uint64_t parallel_value(uint32_t region, uint32_t level, uint64_t team) noexcept {
  const uint64_t index = region >= kOmpRegionBase ? region - kOmpRegionBase + 1 : 0;
  return team << 24 | static_cast<uint64_t>(level < 255 ? level : 255) << 16 | index;
}
uint32_t parallel_region(const ompt_data_t* data) noexcept {
  const uint32_t index = data != nullptr ? static_cast<uint32_t>(data->value & 0xffffu) : 0;
  return index != 0 ? kOmpRegionBase + index - 1 : 0;
}
uint32_t parallel_level(const ompt_data_t* data) noexcept {
  return data != nullptr ? static_cast<uint32_t>(data->value >> 16 & 0xffu) : 0;
}
uint64_t parallel_team(const ompt_data_t* data) noexcept { return data != nullptr ? data->value >> 24 : 0; }

/// End time of a worker's implicit barrier reported at `now`: when its
/// team was done (the MPI thread's implicit task end for the outermost team,
/// the team master's for a nested one), if that lies between.
uint64_t worker_barrier_end(uint64_t now_time) noexcept {
  const uint64_t team_end = t_barrier_level <= 1 ? g_team_end.load(std::memory_order_acquire)
                                                 : g_nested_team_ends.find(t_barrier_team);
  return team_end != 0 && team_end >= t_barrier_enter && team_end < now_time ? team_end : now_time;
}

constexpr OmpConstruct kParallel{"!$omp parallel", RegionRole::kParallel};
constexpr OmpConstruct kLoop{"!$omp for", RegionRole::kLoop};
constexpr OmpConstruct kSections{"!$omp sections", RegionRole::kSections};
constexpr OmpConstruct kSingle{"!$omp single", RegionRole::kSingle};
constexpr OmpConstruct kWorkshare{"!$omp workshare", RegionRole::kWorkshare};
constexpr OmpConstruct kDistribute{"!$omp distribute", RegionRole::kLoop};
constexpr OmpConstruct kTaskloop{"!$omp taskloop", RegionRole::kLoop};
constexpr OmpConstruct kBarrier{"!$omp barrier", RegionRole::kBarrier};
constexpr OmpConstruct kImplicitBarrier{"!$omp implicit barrier", RegionRole::kImplicitBarrier};
constexpr OmpConstruct kTaskwait{"!$omp taskwait", RegionRole::kTaskWait};
constexpr OmpConstruct kTaskgroup{"!$omp taskgroup", RegionRole::kTaskGroup};
constexpr OmpConstruct kCritical{"!$omp critical", RegionRole::kCritical};
constexpr OmpConstruct kCriticalSblock{"!$omp critical sblock", RegionRole::kCriticalSblock};
constexpr OmpConstruct kOrdered{"!$omp ordered", RegionRole::kOrdered};
constexpr OmpConstruct kSetLock{"omp_set_lock", RegionRole::kFunction};
constexpr OmpConstruct kTask{"!$omp task", RegionRole::kTask};
constexpr OmpConstruct kTaskCreate{"!$omp create task", RegionRole::kTaskCreate};

/// In an explicit task's ompt_data: its region (low half) and, once it has
/// been scheduled, this bit.
constexpr uint64_t kTaskStarted = uint64_t{1} << 32;

/// The MPI thread records while the measurement is active (trace mode).
inline bool master_records() noexcept { return t_is_recorder && g_state.active && !g_state.profile; }

void omp_enter(uint32_t region) noexcept {
  if (master_records()) {
    record_enter(region, now());
  } else if (worker_records()) {
    worker_enter(*t_worker, region, now());
  }
}

/// Enter of an implicit task's region, with the id of its team.
void omp_enter_team(uint32_t region, uint64_t team) noexcept {
  Record r;
  r.kind = RecordKind::kEnterTeam;
  r.region = region;
  r.request = team;
  if (master_records()) {
    r.time = now();
    g_state.buffer->append(r);
    g_state.stack.push_back(region);
  } else if (worker_records()) {
    r.time = now();
    t_worker->buffer->append(r);
    t_worker->stack.push_back(region);
  }
}

/// Leaves the innermost region if it is an OpenMP region with `role` (the
/// end callbacks may report another code address than the begin).
void omp_leave_innermost(RegionRole role, uint64_t time = 0) noexcept {
  if (master_records()) {
    if (!g_state.stack.empty() && omp_region_role(g_state.stack.back()) == role) {
      record_leave(g_state.stack.back(), time != 0 ? time : now());
    } else {
      ++g_state.anomalies.unmatched_leaves;
    }
  } else if (worker_records()) {
    WorkerLocation& w = *t_worker;
    if (!w.stack.empty() && omp_region_role(w.stack.back()) == role) {
      worker_leave(w, w.stack.back(), time != 0 ? time : now());
    } else {
      ++w.unmatched_leaves;
    }
  }
}

void omp_event(RecordKind kind, uint32_t threads) noexcept {
  Record r;
  r.kind = kind;
  r.peer = threads;
  if (master_records()) {
    r.time = now();
    g_state.buffer->append(r);
  } else if (worker_records()) {
    r.time = now();
    t_worker->buffer->append(r);
  }
}

void on_thread_begin(ompt_thread_t type, ompt_data_t* thread_data) {
  if (type == ompt_thread_initial || t_is_recorder) return;  // the MPI thread records in g_state
  WorkerLocation* w = register_worker_thread();
  if (thread_data != nullptr && w != nullptr) thread_data->value = w->thread;
}

void on_parallel_begin(ompt_data_t*, const ompt_frame_t*, ompt_data_t* parallel_data, unsigned int requested,
                       int, const void* codeptr_ra) {
  if (parallel_data != nullptr) {
    parallel_data->value = parallel_value(omp_region(kParallel, codeptr_ra), t_level + 1,
                                          g_next_team.fetch_add(1, std::memory_order_relaxed));
  }
  omp_event(RecordKind::kThreadFork, requested);
}

void on_parallel_end(ompt_data_t*, ompt_data_t*, int, const void*) { omp_event(RecordKind::kThreadJoin, 0); }

void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t* parallel_data, ompt_data_t* task_data,
                      unsigned int, unsigned int index, int flags) {
  if ((flags & ompt_task_initial) != 0) return;  // the program's initial task
  if (endpoint == ompt_scope_begin) {
    ++t_level;
    if (t_level <= kTrackedLevels) {
      t_teams[t_level - 1] = parallel_team(parallel_data);
      t_team_master[t_level - 1] = index == 0;
    }
    // A worker's first outermost team gives its OpenMP thread number (a
    // nested team's numbers repeat the outer ones).
    if (parallel_level(parallel_data) <= 1) number_worker_thread(index);
    if (parallel_region(parallel_data) < kOmpRegionBase) return;
    omp_enter_team(parallel_region(parallel_data), parallel_team(parallel_data));
  } else {
    (void)task_data;
    const bool nested_master = t_level >= 2 && t_level <= kTrackedLevels && t_team_master[t_level - 1];
    const uint64_t team = nested_master ? t_teams[t_level - 1] : 0;
    if (t_level > 0) --t_level;
    if (t_is_recorder) {
      const uint64_t time = now();
      g_team_end.store(time, std::memory_order_release);
      if (team != 0) g_nested_team_ends.publish(team, time);
      omp_leave_innermost(RegionRole::kParallel, time);
    } else {
      if (team != 0) g_nested_team_ends.publish(team, t_barrier_end != 0 ? t_barrier_end : now());
      omp_leave_innermost(RegionRole::kParallel, t_barrier_end);
      t_barrier_end = 0;
    }
  }
}

const OmpConstruct* work_construct(ompt_work_t type) noexcept {
  switch (type) {
    case ompt_work_loop: return &kLoop;
    case ompt_work_sections: return &kSections;
    case ompt_work_single_executor:
    case ompt_work_single_other: return &kSingle;
    case ompt_work_workshare: return &kWorkshare;
    case ompt_work_distribute: return &kDistribute;
    case ompt_work_taskloop: return &kTaskloop;
    default: return nullptr;
  }
}

void on_work(ompt_work_t type, ompt_scope_endpoint_t endpoint, ompt_data_t*, ompt_data_t*, uint64_t,
             const void* codeptr_ra) {
  const OmpConstruct* construct = work_construct(type);
  if (construct == nullptr) return;
  if (endpoint == ompt_scope_begin) {
    omp_enter(omp_region(*construct, codeptr_ra));
  } else {
    omp_leave_innermost(construct->role);
  }
}

const OmpConstruct* sync_construct(ompt_sync_region_t kind) noexcept {
  switch (kind) {
    case ompt_sync_region_barrier_explicit: return &kBarrier;
    case ompt_sync_region_barrier:
    case ompt_sync_region_barrier_implicit:
    case ompt_sync_region_barrier_implicit_workshare:
    case ompt_sync_region_barrier_implicit_parallel:
    case ompt_sync_region_barrier_implementation: return &kImplicitBarrier;
    case ompt_sync_region_taskwait: return &kTaskwait;
    case ompt_sync_region_taskgroup: return &kTaskgroup;
    default: return nullptr;
  }
}

void on_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t* parallel_data,
                    ompt_data_t*, const void* codeptr_ra) {
  const OmpConstruct* construct = sync_construct(kind);
  if (construct == nullptr) return;
  // Workers get no code address for the barrier ending a parallel region:
  // it is the parallel region's, as the master thread sees it.
  if (codeptr_ra == nullptr && parallel_region(parallel_data) >= kOmpRegionBase) {
    codeptr_ra = omp_region_codeptr(parallel_region(parallel_data));
  }
  const bool worker_implicit = construct == &kImplicitBarrier && !t_is_recorder;
  if (endpoint == ompt_scope_begin) {
    if (worker_implicit) {
      t_barrier_enter = now();
      t_barrier_level = t_level;
      t_barrier_team = t_level >= 1 && t_level <= kTrackedLevels ? t_teams[t_level - 1] : 0;
    }
    omp_enter(omp_region(*construct, codeptr_ra));
  } else if (worker_implicit && t_barrier_enter != 0) {
    t_barrier_end = worker_barrier_end(now());
    t_barrier_enter = 0;
    omp_leave_innermost(construct->role, t_barrier_end);
  } else {
    omp_leave_innermost(construct->role);
  }
}

void on_mutex_acquire(ompt_mutex_t kind, unsigned int, unsigned int, ompt_wait_id_t, const void* codeptr_ra) {
  switch (kind) {
    case ompt_mutex_critical: omp_enter(omp_region(kCritical, codeptr_ra)); break;
    case ompt_mutex_ordered: omp_enter(omp_region(kOrdered, codeptr_ra)); break;
    case ompt_mutex_lock:
    case ompt_mutex_nest_lock: omp_enter(omp_region(kSetLock, codeptr_ra)); break;
    default: break;  // test locks (may fail: no acquired callback) and atomics
  }
}

void on_mutex_acquired(ompt_mutex_t kind, ompt_wait_id_t, const void* codeptr_ra) {
  switch (kind) {
    case ompt_mutex_critical: omp_enter(omp_region(kCriticalSblock, codeptr_ra)); break;
    case ompt_mutex_lock:
    case ompt_mutex_nest_lock: omp_leave_innermost(RegionRole::kFunction); break;
    default: break;
  }
}

void on_mutex_released(ompt_mutex_t kind, ompt_wait_id_t, const void*) {
  switch (kind) {
    case ompt_mutex_critical:
      omp_leave_innermost(RegionRole::kCriticalSblock);
      omp_leave_innermost(RegionRole::kCritical);
      break;
    case ompt_mutex_ordered: omp_leave_innermost(RegionRole::kOrdered); break;
    default: break;
  }
}

void on_task_create(ompt_data_t*, const ompt_frame_t*, ompt_data_t* new_task_data, int flags, int,
                    const void* codeptr_ra) {
  if ((flags & ompt_task_explicit) == 0 || new_task_data == nullptr) return;
  new_task_data->value = omp_region(kTask, codeptr_ra);
  omp_enter(omp_region(kTaskCreate, codeptr_ra));
  omp_leave_innermost(RegionRole::kTaskCreate);
}

bool is_task(const ompt_data_t* data) noexcept {
  return data != nullptr && omp_region_role(static_cast<uint32_t>(data->value)) == RegionRole::kTask;
}

void on_task_schedule(ompt_data_t* prior_task_data, ompt_task_status_t prior_task_status, ompt_data_t* next_task_data) {
  const bool ended = prior_task_status == ompt_task_complete || prior_task_status == ompt_task_cancel ||
                     prior_task_status == ompt_task_detach;
  if (ended && is_task(prior_task_data)) omp_leave_innermost(RegionRole::kTask);
  if (is_task(next_task_data) && (next_task_data->value & kTaskStarted) == 0) {
    next_task_data->value |= kTaskStarted;
    omp_enter(static_cast<uint32_t>(next_task_data->value));
  }
}

int initialize(ompt_function_lookup_t lookup, int, ompt_data_t*) {
  const auto set_callback = reinterpret_cast<ompt_set_callback_t>(lookup("ompt_set_callback"));
  if (set_callback == nullptr) return 0;
  const auto set = [&](ompt_callbacks_t event, ompt_callback_t callback) {
    return set_callback(event, callback) != ompt_set_never;
  };
  bool ok = set(ompt_callback_thread_begin, reinterpret_cast<ompt_callback_t>(&on_thread_begin));
  ok = set(ompt_callback_parallel_begin, reinterpret_cast<ompt_callback_t>(&on_parallel_begin)) && ok;
  ok = set(ompt_callback_parallel_end, reinterpret_cast<ompt_callback_t>(&on_parallel_end)) && ok;
  ok = set(ompt_callback_implicit_task, reinterpret_cast<ompt_callback_t>(&on_implicit_task)) && ok;
  set(ompt_callback_work, reinterpret_cast<ompt_callback_t>(&on_work));
  set(ompt_callback_sync_region, reinterpret_cast<ompt_callback_t>(&on_sync_region));
  set(ompt_callback_mutex_acquire, reinterpret_cast<ompt_callback_t>(&on_mutex_acquire));
  set(ompt_callback_mutex_acquired, reinterpret_cast<ompt_callback_t>(&on_mutex_acquired));
  set(ompt_callback_mutex_released, reinterpret_cast<ompt_callback_t>(&on_mutex_released));
  set(ompt_callback_task_create, reinterpret_cast<ompt_callback_t>(&on_task_create));
  set(ompt_callback_task_schedule, reinterpret_cast<ompt_callback_t>(&on_task_schedule));
  g_tool_active.store(ok);
  return ok ? 1 : 0;  // 0: the runtime runs without the tool
}

void finalize(ompt_data_t*) { g_tool_active.store(false); }

}  // namespace

bool openmp_tool_active() noexcept { return g_tool_active.load(); }
const std::string& openmp_runtime_version() noexcept { return g_runtime_version; }
uint64_t openmp_last_team_end() noexcept { return g_team_end.load(std::memory_order_acquire); }

}  // namespace orrery::measure

/// The runtime's entry into the tool (OpenMP 5.0 §4.2.1).
extern "C" ORRERY_EXPORT ompt_start_tool_result_t* ompt_start_tool(unsigned int, const char* runtime_version) {
  using namespace orrery::measure;
  const char* enabled = std::getenv("ORRERY_OPENMP");
  if (enabled != nullptr && std::strcmp(enabled, "0") == 0) return nullptr;
  const char* mode = std::getenv("ORRERY_MODE");
  if (mode != nullptr && std::strcmp(mode, "profile") == 0) return nullptr;
  try {
    g_runtime_version = runtime_version != nullptr ? runtime_version : "";
  } catch (...) {
  }
  static ompt_start_tool_result_t result = {&initialize, &finalize, ompt_data_none};
  return &result;
}

#pragma once
// The per-process recording state and the hot path: Enter/Leave into the event
// buffer from the one recording thread (the one that called MPI_Init), with a
// re-entry guard. Nothing here locks, allocates (after the first use of a
// region) or prints.

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "call_tree.h"
#include "clock.h"
#include "definitions.h"
#include "event_buffer.h"
#include "mpi_catalog.h"

namespace orrery::measure {

/// Settings read from the ORRERY_* environment at MPI_Init.
struct Settings {
  std::string experiment_dir;
  std::string mode = "trace";
  std::size_t buffer_size = 16u << 20;
  std::string filter_path;
  unsigned sampling_interval_ms = 0;
  bool trace_queries = false;
  bool verbose = false;
  bool launcher = false;
};

/// Anomalies counted on the hot path and reported at finalize.
struct Anomalies {
  uint64_t unknown_requests = 0;
  uint64_t lazily_registered_comms = 0;
  uint64_t unmatched_leaves = 0;
  uint64_t regions_closed_at_finalize = 0;
  uint64_t hook_calls_outside_measurement = 0;
};

/// The open regions, innermost last: push and pop inline, growth out of line
/// (std::vector's push_back stayed a call in the wrappers).
class RegionStack {
 public:
  RegionStack() = default;
  RegionStack(const RegionStack&) = delete;
  RegionStack& operator=(const RegionStack&) = delete;
  ~RegionStack() {
    delete[] data_;
    data_ = nullptr;  // a hook running after static destruction grows a new one
    size_ = capacity_ = 0;
  }
  __attribute__((always_inline)) void push_back(uint32_t region) {
    if (size_ == capacity_) [[unlikely]] grow(capacity_ * 2 + 16);
    data_[size_++] = region;
  }
  void pop_back() noexcept { --size_; }
  [[nodiscard]] uint32_t back() const noexcept { return data_[size_ - 1]; }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  void clear() noexcept { size_ = 0; }
  void reserve(std::size_t capacity) {
    if (capacity > capacity_) grow(capacity);
  }

 private:
  __attribute__((noinline)) void grow(std::size_t capacity) {
    auto* bigger = new uint32_t[capacity];
    for (std::size_t i = 0; i < size_; ++i) bigger[i] = data_[i];
    delete[] data_;
    data_ = bigger;
    capacity_ = capacity;
  }
  uint32_t* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

/// Everything the recording thread writes.
struct RecorderState {
  bool active = false;  ///< between MPI_Init and MPI_Finalize on an enabled rank
  /// Compiler/user regions are recorded: from the first one before MPI_Init
  /// (program_region.cpp) or from MPI_Init, until MPI_Finalize.
  bool hooks = false;
  bool profile = false;  ///< ORRERY_MODE=profile: call-path aggregates, no events
  CallTree tree;         ///< profile mode only
  Settings settings;
  int world_rank = 0;
  int world_size = 1;
  std::unique_ptr<EventBuffer> buffer;
  LocalDefinitions definitions;
  RegionStack stack;  ///< open regions, innermost last
  std::vector<uint32_t> fn_region;  ///< region id per FunctionId (UINT32_MAX: not yet defined)
  std::vector<uint64_t> counted_calls;  ///< per FunctionId: counted, not traced
  uint64_t counted_user_calls = 0;
  Anomalies anomalies;
  uint32_t flush_region = 0;
  uint32_t root_region = UINT32_MAX;  ///< the program root region (bottom of `stack`)
};

extern RecorderState g_state;
/// Calls made on threads other than the recording one (counted, not recorded).
extern std::atomic<uint64_t> g_other_thread_events;
/// Of those, MPI calls other than queries (worker_mpi.cpp): their messages
/// and collectives are missing from the trace.
extern std::atomic<uint64_t> g_other_thread_mpi_calls;

// constinit: no dynamic initialisation, so no TLS wrapper check at each use.
extern constinit thread_local int t_depth __attribute__((tls_model("initial-exec")));
extern constinit thread_local bool t_is_recorder __attribute__((tls_model("initial-exec")));

/// True when this thread may record right now.
inline bool recording_here() noexcept { return g_state.hooks && t_is_recorder; }

// always_inline: GCC kept these out of line in the wrappers (a call each).
__attribute__((always_inline)) inline void record_enter(uint32_t region, uint64_t time) noexcept {
  if (g_state.profile) {
    g_state.tree.enter(region, time);
  } else {
    g_state.buffer->enter(time, region);
  }
  g_state.stack.push_back(region);
}

/// Records Leave if `region` is the innermost open region (else counts it).
__attribute__((always_inline)) inline void record_leave(uint32_t region, uint64_t time) noexcept {
  if (g_state.stack.empty() || g_state.stack.back() != region) {
    ++g_state.anomalies.unmatched_leaves;
    return;
  }
  g_state.stack.pop_back();
  if (g_state.profile) {
    g_state.tree.leave(time);
  } else {
    g_state.buffer->leave(time, region);
  }
}

/// Profile mode: what a message or collective event adds to the call tree.
inline void profile_traffic(RecordKind kind, uint64_t bytes, uint64_t bytes_received) noexcept {
  switch (kind) {
    case RecordKind::kMpiSend:
    case RecordKind::kMpiIsend:
      g_state.tree.add_traffic(CallTree::Traffic::kSend, bytes, 0);
      break;
    case RecordKind::kMpiRecv:
    case RecordKind::kMpiIrecv:
      g_state.tree.add_traffic(CallTree::Traffic::kReceive, 0, bytes);
      break;
    case RecordKind::kCollEnd:
    case RecordKind::kNbcComplete:
      g_state.tree.add_traffic(CallTree::Traffic::kCollective, bytes, bytes_received);
      break;
    default:
      break;
  }
}

/// Any non-region event (profile mode: only its counts and bytes).
inline void record(const Record& record) noexcept {
  if (!g_state.profile) {
    g_state.buffer->append(record);
  } else {
    profile_traffic(record.kind, record.bytes, record.bytes_received);
  }
}
/// MpiSend/MpiRecv (profile mode: only their counts and bytes).
inline void record_message(RecordKind kind, uint64_t time, uint32_t peer, uint32_t comm, uint32_t tag,
                           uint64_t bytes) noexcept {
  if (!g_state.profile) {
    g_state.buffer->message(kind, time, peer, comm, tag, bytes);
  } else {
    profile_traffic(kind, bytes, bytes);
  }
}

/// The region role of an MPI function.
RegionRole mpi_region_role(const FunctionInfo& info) noexcept;
struct WorkerLocation;
/// MPI call on a worker thread (worker_mpi.cpp): records its Enter on the
/// thread's own location, at the time it stores in `time`; returns the
/// region (0: this thread does not record).
uint32_t worker_mpi_enter(FunctionId fn, uint64_t& time) noexcept;
/// Its Leave at `time` (0: now; nothing for region 0).
void worker_mpi_leave(uint32_t region, uint64_t time = 0) noexcept;
/// This worker thread's location if it records calls of `category` with
/// their events (point-to-point requests, MPI_Sendrecv), else null: the
/// handlers then run for it as for the MPI thread, on its own location.
WorkerLocation* worker_with_events(Category category) noexcept;
/// Calls of `category` create or free a communicator.
inline bool registers_communicator(Category category) noexcept {
  return category == Category::kCommNew || category == Category::kCommFree;
}
/// Appends `record` to a worker's buffer.
void worker_record(WorkerLocation& worker, const Record& record) noexcept;

/// Defines the region of an MPI function (first use).
uint32_t define_mpi_region(FunctionId fn) noexcept;

/// Region id of an MPI function.
inline uint32_t mpi_region(FunctionId fn) noexcept {
  const uint32_t region = g_state.fn_region[fn];
  return region != UINT32_MAX ? region : define_mpi_region(fn);
}

/// The fast path of the generated blocking point-to-point wrappers may be
/// taken: trace mode, measuring, on the recording thread, not inside another
/// wrapper. It records exactly what the generic path (Call, before_call,
/// after_call) records for these calls, with fewer branches and one buffer
/// room check for the two events that share a timestamp.
__attribute__((always_inline)) inline bool fast_path() noexcept {
  return g_state.active && !g_state.profile && t_is_recorder && t_depth == 0;
}

/// Fast path: Enter of MPI function `fn` at `time`; returns its region.
__attribute__((always_inline)) inline uint32_t fast_enter(FunctionId fn, uint64_t time) noexcept {
  t_depth = 1;
  const uint32_t region = mpi_region(fn);
  g_state.buffer->enter(time, region);
  g_state.stack.push_back(region);
  return region;
}

/// Fast path: Leave of the call entered by fast_enter (or fast_send_enter).
__attribute__((always_inline)) inline void fast_leave(uint32_t region) noexcept {
  t_depth = 0;
  if (g_state.active) record_leave(region, now());
}

/// RAII for one wrapped MPI call: re-entry guard, Enter now (or deferred until
/// the call turns out to be worth an event), Leave at the end.
class Call {
 public:
  __attribute__((always_inline)) explicit Call(FunctionId fn) noexcept {
    if (!g_state.active) return;
    guarded_ = true;
    if (t_depth++ != 0) return;
    if (!t_is_recorder) {
      // An OpenMP worker records the call on its own location; others count it.
      worker_region_ = worker_mpi_enter(fn, enter_time_);
      if (worker_region_ == 0) {
        g_other_thread_events.fetch_add(1, std::memory_order_relaxed);
        // Communicators are registered on every thread: their creation is
        // collective, the key agreed over the new communicator (comm_registry.h).
        if (registers_communicator(kFunctions[fn].category)) {
          fn_ = fn;
          mode_ = Mode::kBookkeeping;
        }
      } else if ((worker_ = worker_with_events(kFunctions[fn].category)) != nullptr) {
        fn_ = fn;
        mode_ = Mode::kTraced;
      }
      return;
    }
    const Category category = kFunctions[fn].category;
    const bool queries = g_state.settings.trace_queries;
    if (category == Category::kQuery && !queries) {
      ++g_state.counted_calls[fn];
      return;
    }
    fn_ = fn;
    enter_time_ = now();
    if (is_deferred(category) && !queries) {
      mode_ = Mode::kDeferred;
    } else {
      mode_ = Mode::kTraced;
      record_enter(mpi_region(fn), enter_time_);
    }
  }
  __attribute__((always_inline)) ~Call() {
    if (!guarded_) return;
    --t_depth;
    if (worker_region_ != 0) {
      worker_mpi_leave(worker_region_, leave_time_);
      return;
    }
    if (mode_ == Mode::kTraced && g_state.active) {
      record_leave(mpi_region(fn_), leave_time_ != 0 ? leave_time_ : now());
    } else if (mode_ == Mode::kDeferred) {
      ++g_state.counted_calls[fn_];
    }
  }
  Call(const Call&) = delete;
  Call& operator=(const Call&) = delete;

  /// The handlers should run (bookkeeping and, if recording(), events).
  [[nodiscard]] bool handles() const noexcept { return mode_ != Mode::kPassive; }
  /// Events are being recorded for this call.
  [[nodiscard]] bool recording() const noexcept { return mode_ == Mode::kTraced; }
  /// Turns a deferred call into a traced one: records its Enter with the time of entry.
  void commit() noexcept {
    if (mode_ != Mode::kDeferred) return;
    mode_ = Mode::kTraced;
    record_enter(mpi_region(fn_), enter_time_);
  }
  [[nodiscard]] FunctionId function() const noexcept { return fn_; }
  /// The worker thread this call records on (null: the MPI thread).
  [[nodiscard]] WorkerLocation* worker() const noexcept { return worker_; }
  /// Records an event of this call on its thread's location.
  void emit(const Record& r) const noexcept {
    if (worker_ != nullptr) {
      worker_record(*worker_, r);
    } else {
      record(r);
    }
  }
  /// MpiSend/MpiRecv of this call (record_message on the MPI thread).
  void emit_message(RecordKind kind, uint64_t time, uint32_t peer, uint32_t comm, uint32_t tag,
                    uint64_t bytes) const noexcept {
    if (worker_ == nullptr) {
      record_message(kind, time, peer, comm, tag, bytes);
      return;
    }
    Record r;
    r.kind = kind;
    r.time = time;
    r.peer = peer;
    r.comm = comm;
    r.tag = tag;
    r.bytes = bytes;
    worker_record(*worker_, r);
  }
  /// When the call was entered (events right after Enter share it).
  [[nodiscard]] uint64_t enter_time() const noexcept { return enter_time_; }
  /// One clock reading after the PMPI call, shared by the events recorded
  /// then and the Leave: one clock read per call saved. Only after the PMPI call.
  [[nodiscard]] uint64_t stamp() const noexcept {
    if (leave_time_ == 0) leave_time_ = now();
    return leave_time_;
  }

 private:
  // kBookkeeping: the handlers run, nothing is recorded (a communicator
  // created or freed on a thread that is not traced).
  enum class Mode : uint8_t { kPassive, kDeferred, kTraced, kBookkeeping };
  Mode mode_ = Mode::kPassive;
  bool guarded_ = false;
  FunctionId fn_ = 0;
  uint64_t enter_time_ = 0;
  mutable uint64_t leave_time_ = 0;
  uint32_t worker_region_ = 0;
  WorkerLocation* worker_ = nullptr;
};

}  // namespace orrery::measure

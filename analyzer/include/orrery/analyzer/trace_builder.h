#pragma once
// Builds a LocalTrace from events in time order: links Enter/Leave, message
// posts with completions (by request id) and collective starts with their
// completions. The OTF2 adapter feeds it; tests feed it by hand.

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "orrery/analyzer/trace.h"

namespace orrery::analyzer {

/// Appends events to a LocalTrace and links them as they come.
class TraceBuilder {
 public:
  explicit TraceBuilder(LocalTrace& trace) : trace_(trace) {}

  void enter(int64_t time, uint32_t region);
  void leave(int64_t time, uint32_t region);
  void send(int64_t time, uint32_t receiver, uint32_t comm, uint32_t tag, uint64_t bytes);
  void isend(int64_t time, uint32_t receiver, uint32_t comm, uint32_t tag, uint64_t bytes,
             uint64_t request);
  void isend_complete(int64_t time, uint64_t request);
  void recv(int64_t time, uint32_t sender, uint32_t comm, uint32_t tag, uint64_t bytes);
  void irecv_request(int64_t time, uint64_t request);
  void irecv(int64_t time, uint32_t sender, uint32_t comm, uint32_t tag, uint64_t bytes,
             uint64_t request);
  void request_cancelled(uint64_t request);
  void collective_begin(int64_t time);
  void collective_end(int64_t time, CollectiveKind kind, uint32_t comm, uint32_t root,
                      uint64_t sent, uint64_t received);
  void nbc_request(int64_t time, uint64_t request);
  void nbc_complete(int64_t time, CollectiveKind kind, uint32_t comm, uint32_t root,
                    uint64_t sent, uint64_t received, uint64_t request);

  /// Closes regions left open (a truncated trace); call once at the end.
  void finish();

 private:
  uint32_t current_call() const { return stack_.empty() ? kNone : stack_.back(); }
  uint32_t push(int64_t time, EventKind kind, uint32_t ref, uint32_t link) {
    // Events of one location come in time order; a clock that steps back by a
    // few ticks is clamped rather than rejected.
    if (time < last_time_) time = last_time_;
    last_time_ = time;
    return trace_.events.push(Event{time, ref, link, kind});
  }

  LocalTrace& trace_;
  std::vector<uint32_t> stack_;  ///< Enter indices of open regions
  std::unordered_map<uint64_t, uint32_t> pending_isends_;
  std::unordered_map<uint64_t, uint32_t> pending_irecvs_;
  std::unordered_map<uint64_t, uint32_t> pending_nbcs_;
  uint32_t open_collective_ = kNone;
  int64_t last_time_ = 0;
};

}  // namespace orrery::analyzer

#pragma once
// One rank's events streamed in order, without keeping them: what the
// timeline reader (timeline.h) and the viewer's timeline summary build on.
// Times are seconds from the trace's start; ticks are the trace's own
// (global offset subtracted), which sum exactly. Reading can start at an
// event position (OTF2's seek) and stop early.

#include <cstdint>

#include "orrery/trace/timeline.h"

namespace orrery::analyzer::timeline {

/// Receives one rank's events. `position` is OTF2's event position (the
/// value stream_rank's `from_position` seeks to).
class EventVisitor {
 public:
  EventVisitor() = default;
  EventVisitor(const EventVisitor&) = default;
  EventVisitor& operator=(const EventVisitor&) = default;
  EventVisitor(EventVisitor&&) = default;
  EventVisitor& operator=(EventVisitor&&) = default;
  virtual ~EventVisitor() = default;

  virtual void enter(uint64_t position, int64_t ticks, uint32_t region) = 0;
  virtual void leave(uint64_t position, int64_t ticks) = 0;
  /// A point-to-point message end; `peer` is already a world rank.
  virtual void message(uint64_t position, int64_t ticks, bool send, uint32_t comm, uint32_t peer,
                       uint32_t tag, uint64_t bytes) = 0;
  virtual void sample(uint64_t /*position*/, int64_t /*ticks*/, const Sample& /*sample*/) {}
  /// Checked after every event: true stops the reading (no error).
  [[nodiscard]] virtual bool done() const { return false; }
};

/// Streams a world rank's events in order from `from_position` (0: the first).
/// Throws orrery::InputError for a missing, corrupt or truncated trace.
void stream_rank(const Definitions& definitions, uint32_t rank, EventVisitor& visitor,
                 uint64_t from_position = 0);

/// Seconds of a tick count (relative to the trace's start).
[[nodiscard]] inline double seconds(const Definitions& definitions, int64_t ticks) {
  return static_cast<double>(ticks) / static_cast<double>(definitions.resolution);
}

}  // namespace orrery::analyzer::timeline

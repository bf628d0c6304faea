#pragma once
// Internal to the critical-path analysis (replay_critical_path.cpp and
// replay_critical_path_waits.cpp): the wait states where the path moves to
// another process, and where on that process it goes on.

#include <mpi.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "orrery/analyzer/communicators.h"
#include "orrery/analyzer/message_exchange.h"
#include "orrery/analyzer/trace.h"

namespace orrery::analyzer::critical_path {

/// Where the path goes on at the process that caused a wait: the Enter of
/// its send (by send index), of its receive's posting call (by receive
/// index), or of its start of a collective instance (communicator, ordinal).
enum class ResumeKind : int64_t { kDone = 0, kEnd = 1, kSend = 2, kRecv = 3, kCollective = 4 };

/// The token that walks the path: what to resume at, and hops so far.
struct Token {
  ResumeKind kind = ResumeKind::kDone;
  int64_t a = 0;
  int64_t b = 0;
  int64_t hops = 0;
};

/// A call of this process that waited for another process.
struct WaitPoint {
  uint32_t call = kNone;     ///< Enter index of the waiting call
  int64_t wait_end = 0;      ///< when the waiting ended (the other process arrived)
  uint32_t delayer = kNone;  ///< world rank of the process that arrived late
  Token resume;              ///< where the path goes on there
};

/// The collective instances of this rank per communicator (the ordinals a
/// token names) and their wait points.
class CollectiveArrivals {
 public:
  CollectiveArrivals(const LocalTrace& trace, const Definitions& definitions,
                     const Communicators& comms);
  /// Collective over every communicator of the trace (one reduction of
  /// three (time, rank) pairs per instance, in chunks): appends this rank's
  /// collective wait points.
  void find_waits(std::vector<WaitPoint>& points) const;
  /// Enter index of the start call of instance `ordinal` on `comm` (kNone if none).
  [[nodiscard]] uint32_t start_of(int64_t comm, int64_t ordinal) const;

 private:
  const LocalTrace& trace_;
  const Definitions& definitions_;
  const Communicators& comms_;
  /// Per communicator (id order): the instances (index into trace.collectives).
  std::vector<std::pair<uint32_t, std::vector<uint32_t>>> by_comm_;
};

/// This rank's wait points, sorted by call; one per call (the wait that
/// ended last). Collective over `world` (exchanges along the messages and
/// reductions over the communicators).
std::vector<WaitPoint> find_wait_points(const LocalTrace& trace, const Definitions& definitions,
                                        const MessageMatching& matching,
                                        const CollectiveArrivals& collectives, MPI_Comm world);

}  // namespace orrery::analyzer::critical_path

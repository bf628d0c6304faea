#pragma once
// Call paths of another thread's calls in the rank's final call tree, for
// the replays of the threads' messages and collectives (thread_messages.h,
// thread_collectives.h).

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <vector>

#include "orrery/analyzer/openmp_analysis.h"
#include "orrery/trace/call_tree.h"
#include "orrery/trace/clock.h"
#include "orrery/trace/trace.h"

namespace orrery::analyzer {

/// Call paths of a location's Enters in the rank's tree (kNone where it has
/// none): the MPI thread's are the tree's already; another thread's own
/// call paths are rebuilt below the call path of the team each of its
/// outermost parallel instances belonged to, as the OpenMP analysis did.
class ThreadCallPaths {
 public:
  ThreadCallPaths(const LocalTrace& trace, bool master, const Definitions& definitions, const CallTree& tree,
                  const std::vector<ThreadSeverities::TeamEntry>* teams, const ClockMapping& clock)
      : trace_(trace), master_(master) {
    if (master) return;
    const EventStore& events = trace.events;
    ids_.assign(events.size(), kNone);
    std::vector<uint32_t> stack;
    for (uint32_t i = 0; i < events.size(); ++i) {
      const Event& event = events[i];
      if (event.kind() == EventKind::kLeave) {
        if (!stack.empty()) stack.pop_back();
        continue;
      }
      if (event.kind() != EventKind::kEnter) continue;
      const uint32_t region = trace.calltree.region(event.ref());
      uint32_t parent = stack.empty() ? kNone : stack.back();
      const bool parallel = region < definitions.regions.size() &&
                            definitions.regions[region].role == RegionRole::kParallel;
      if (stack.empty() && parallel && teams != nullptr) parent = team_parent(*teams, clock, event.time);
      const uint32_t id = stack.empty() || parent != kNone ? tree.find(parent, region) : kNone;
      ids_[i] = id;
      stack.push_back(id);
    }
  }

  /// The call path of the call whose Enter is `enter`.
  [[nodiscard]] uint32_t operator()(uint32_t enter) const {
    return master_ ? trace_.events[enter].ref() : ids_[enter];
  }

 private:
  /// The team call path of the outermost instance entered at `time`: the
  /// instance with that enter, else the latest one before it.
  static uint32_t team_parent(const std::vector<ThreadSeverities::TeamEntry>& teams, const ClockMapping& clock,
                              int64_t time) {
    auto it = std::upper_bound(teams.begin(), teams.end(), time,
                               [&](int64_t t, const ThreadSeverities::TeamEntry& e) { return t < clock(e.enter); });
    return it == teams.begin() ? kNone : std::prev(it)->parent;
  }

  const LocalTrace& trace_;
  bool master_;
  std::vector<uint32_t> ids_;
};

}  // namespace orrery::analyzer

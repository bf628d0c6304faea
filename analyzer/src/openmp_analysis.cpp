// The OpenMP analysis of one rank's threads (openmp_analysis.h).

#include "orrery/analyzer/openmp_analysis.h"

#include <algorithm>
#include <iterator>
#include <map>

#include "orrery/trace/region_events.h"
#include "orrery/patterns/region_class.h"

namespace orrery::analyzer {
namespace {

/// One barrier instance on one thread, in ticks.
struct BarrierVisit {
  int64_t enter = 0;
  int64_t exit = 0;
  uint32_t callpath = 0;
  /// Regions the thread ran inside the barrier (explicit tasks it picked
  /// up while it waited): busy, not waiting.
  std::vector<std::pair<int64_t, int64_t>> inner;
};

/// One instance of a parallel region on one thread, with its barriers in order.
struct ParallelVisit {
  int64_t enter = 0;
  int64_t exit = 0;
  std::vector<BarrierVisit> barriers;  ///< the team's own (not those of nested regions)
  uint32_t parent = kNone;  ///< the call path the region was entered from
  uint32_t region = kNone;
  uint32_t callpath = kNone;  ///< the instance's own call path
  uint64_t team = 0;  ///< the team's id (trace attribute "OpenMP team"), 0 if not recorded
};

/// A team's members: (thread index in the walks, its instance).
using TeamMembers = std::vector<std::pair<std::size_t, const ParallelVisit*>>;

const ParallelVisit* team_of(const std::vector<ParallelVisit>& master, int64_t enter);

/// What one thread's walk found.
struct ThreadWalk {
  std::vector<ParallelVisit> parallels;  ///< outermost parallel instances, in time order
  std::vector<ParallelVisit> nested;  ///< nested instances whose team was recorded, in order of entry
  /// Master only: (call path, ticks) of serial time outside parallel regions.
  std::vector<std::pair<uint32_t, int64_t>> serial;
};

class Walker {
 public:
  Walker(const Definitions& definitions, CallTree& tree, const patterns::PatternRegistry& registry,
         patterns::SeverityMap* times, double seconds_per_tick)
      : definitions_(definitions), tree_(tree), registry_(registry), times_(times),
        seconds_per_tick_(seconds_per_tick), visits_(registry.row("visits")) {}

  /// Walks `events`; with a SeverityMap, fills its time classes and visits.
  /// A worker's (`team` given: the master's parallel instances) outermost
  /// parallel region hangs below the master's call path of its team, so
  /// that every thread's instance of a region is one call path.
  ThreadWalk walk(const std::vector<RegionEvent>& events, const std::vector<ParallelVisit>* team) {
    const bool master = team == nullptr;
    ThreadWalk result;
    struct Open {
      uint32_t callpath;
      uint32_t region;
      int64_t enter;
      int64_t children;
      std::vector<std::pair<int64_t, int64_t>> inner;  ///< of a barrier: its children
    };
    std::vector<Open> stack;
    int parallel_depth = 0;
    constexpr std::size_t kUnknownTeam = SIZE_MAX;
    std::vector<std::size_t> open_nested;  ///< open nested instances (index in result.nested)
    int64_t previous = events.empty() ? 0 : events.front().time;
    for (const RegionEvent& e : events) {
      if (master && parallel_depth == 0 && !stack.empty() && e.time > previous) {
        result.serial.emplace_back(stack.back().callpath, e.time - previous);
      }
      previous = e.time;
      if (e.enter) {
        uint32_t parent = stack.empty() ? kNone : stack.back().callpath;
        const RegionDef* def = region(e.region);
        const bool parallel = def != nullptr && def->role == RegionRole::kParallel;
        if (parallel && stack.empty() && !master) {
          // A thread of the team hangs below the master's call path of the
          // region; a thread that only served a nested team (its outermost
          // region is another one) below the master's region itself.
          if (const ParallelVisit* instance = team_of(*team, e.time)) {
            parent = instance->region == e.region ? instance->parent : instance->callpath;
          }
        }
        stack.push_back(Open{tree_.child(parent, e.region), e.region, e.time, 0, {}});
        if (parallel && parallel_depth++ == 0) {
          result.parallels.push_back(
              ParallelVisit{e.time, e.time, {}, parent, e.region, stack.back().callpath, e.team});
        } else if (parallel) {
          open_nested.push_back(e.team != 0 ? result.nested.size() : kUnknownTeam);
          if (e.team != 0) {
            result.nested.push_back(ParallelVisit{e.time, e.time, {}, parent, e.region, stack.back().callpath, e.team});
          }
        }
        continue;
      }
      if (stack.empty() || stack.back().region != e.region) continue;  // unmatched: ignored
      Open open = std::move(stack.back());
      stack.pop_back();
      const int64_t duration = e.time - open.enter;
      if (!stack.empty()) {
        stack.back().children += duration;
        if (is_barrier(region(stack.back().region))) stack.back().inner.emplace_back(open.enter, e.time);
      }
      const RegionDef* def = region(e.region);
      if (def != nullptr && def->role == RegionRole::kParallel && parallel_depth > 1 && !open_nested.empty()) {
        if (open_nested.back() != kUnknownTeam) result.nested[open_nested.back()].exit = e.time;
        open_nested.pop_back();
      }
      if (def != nullptr && def->role == RegionRole::kParallel && parallel_depth > 0 && --parallel_depth == 0) {
        result.parallels.back().exit = e.time;
      }
      // A barrier belongs to the innermost team the thread serves: the
      // outermost one, or a nested one whose id the trace names (without
      // it, its members are not known and its time stays in omp).
      if (is_barrier(def) && parallel_depth == 1 && !result.parallels.empty()) {
        result.parallels.back().barriers.push_back(BarrierVisit{open.enter, e.time, open.callpath, std::move(open.inner)});
      } else if (is_barrier(def) && parallel_depth > 1 && !open_nested.empty() && open_nested.back() != kUnknownTeam) {
        result.nested[open_nested.back()].barriers.push_back(
            BarrierVisit{open.enter, e.time, open.callpath, std::move(open.inner)});
      }
      if (times_ != nullptr) {
        static const RegionDef unknown{};
        const std::size_t row = registry_.row(patterns::time_category(def != nullptr ? *def : unknown, false, false));
        times_->add(row, open.callpath, static_cast<double>(duration - open.children) * seconds_per_tick_);
        times_->add(visits_, open.callpath, 1.0);
      }
    }
    return result;
  }

 private:
  static bool is_barrier(const RegionDef* def) {
    return def != nullptr && def->paradigm == Paradigm::kOpenmp && def->role == RegionRole::kBarrier;
  }
  const RegionDef* region(uint32_t id) const {
    return id < definitions_.regions.size() ? &definitions_.regions[id] : nullptr;
  }

  const Definitions& definitions_;
  CallTree& tree_;
  const patterns::PatternRegistry& registry_;
  patterns::SeverityMap* times_;
  double seconds_per_tick_;
  std::size_t visits_;
};

/// The master's parallel instance that `visit` belongs to: the first that
/// ends after it started (a worker may begin its implicit task before the
/// master does, but after the master's previous instance ended), or nullptr.
const ParallelVisit* team_of(const std::vector<ParallelVisit>& master, int64_t enter) {
  auto it = std::lower_bound(master.begin(), master.end(), enter,
                             [](const ParallelVisit& p, int64_t time) { return p.exit < time; });
  if (it == master.end()) return nullptr;
  if (it != master.begin() && std::prev(it)->exit > enter) return nullptr;
  return &*it;
}

/// omp_barrier_wait of one team: the k-th barrier of every member is one
/// instance, and each member waited min(latest arrival, exit(self)) -
/// arrival(self), less the tasks it ran there before then.
void add_barrier_waits(const TeamMembers& team, std::size_t wait_row, double seconds_per_tick,
                       patterns::SeverityMap& master, std::vector<patterns::SeverityMap>& slots) {
  std::size_t instances = 0;
  for (const auto& [who, visit] : team) instances = std::max(instances, visit->barriers.size());
  for (std::size_t k = 0; k < instances; ++k) {
    int64_t latest = INT64_MIN;
    for (const auto& [who, visit] : team) {
      if (k < visit->barriers.size()) latest = std::max(latest, visit->barriers[k].enter);
    }
    for (const auto& [who, visit] : team) {
      if (k >= visit->barriers.size()) continue;
      const BarrierVisit& b = visit->barriers[k];
      // Waiting until the last arrival, but for the tasks the thread ran meanwhile.
      const int64_t until = std::min(latest, b.exit);
      int64_t wait = until - b.enter;
      for (const auto& [from, to] : b.inner) wait -= std::max<int64_t>(0, std::min(to, until) - std::max(from, b.enter));
      if (wait <= 0) continue;
      const double seconds = static_cast<double>(wait) * seconds_per_tick;
      // Carved out of omp by the time pattern's finish (every slot's too).
      (who == 0 ? master : slots[who - 1]).add(wait_row, b.callpath, seconds);
    }
  }
}

}  // namespace

ThreadSeverities analyze_openmp(const std::string& experiment, const Definitions& definitions, uint32_t rank,
                                CallTree& tree, const patterns::PatternRegistry& registry,
                                patterns::SeverityMap& master, double seconds_per_tick) {
  ThreadSeverities result;
  const RankDef& def = definitions.ranks.at(rank);
  if (rank >= definitions.threads.size() || definitions.threads[rank].empty()) return result;
  const std::vector<ThreadDef>& threads = definitions.threads[rank];
  const uint32_t team_attribute = read_team_attribute(experiment);
  std::vector<std::vector<RegionEvent>> events;
  events.push_back(read_region_events(experiment, def.location, team_attribute));
  for (const ThreadDef& thread : threads) {
    events.push_back(read_region_events(experiment, thread.location, team_attribute));
  }
  // First every thread's call paths (the tree grows), then the workers'
  // time classes in maps of the final tree's size.
  std::vector<ThreadWalk> walks;
  walks.reserve(events.size());
  walks.push_back(Walker(definitions, tree, registry, nullptr, seconds_per_tick).walk(events[0], nullptr));
  for (std::size_t t = 1; t < events.size(); ++t) {
    walks.push_back(Walker(definitions, tree, registry, nullptr, seconds_per_tick).walk(events[t], &walks[0].parallels));
  }
  std::vector<patterns::SeverityMap>& slots = result.slots;
  slots.reserve(threads.size());
  for (std::size_t t = 0; t < threads.size(); ++t) {
    slots.emplace_back(registry.size(), tree.size());
    Walker(definitions, tree, registry, &slots[t], seconds_per_tick).walk(events[t + 1], &walks[0].parallels);
  }

  // Teams: each worker's parallel instance joins the master's it started in
  // (unless their recorded teams differ); the k-th barrier of every member
  // is one barrier instance. Nested teams by the id each member's implicit
  // task carries (a thread that served only nested teams has them as its
  // outermost instances).
  const std::size_t wait_row = registry.row("omp_barrier_wait");
  const std::vector<ParallelVisit>& teams = walks[0].parallels;
  std::vector<TeamMembers> members(teams.size());
  for (std::size_t i = 0; i < teams.size(); ++i) members[i].emplace_back(0, &teams[i]);
  std::map<uint64_t, TeamMembers> nested;
  for (std::size_t w = 1; w < walks.size(); ++w) {
    for (const ParallelVisit& visit : walks[w].parallels) {
      const ParallelVisit* team = team_of(teams, visit.enter);
      const bool same_team = visit.team == 0 || team == nullptr || team->team == 0 || team->team == visit.team;
      if (team != nullptr && team->region == visit.region && same_team) {
        members[static_cast<std::size_t>(team - teams.data())].emplace_back(w, &visit);
      } else if (visit.team != 0) {
        nested[visit.team].emplace_back(w, &visit);
      }
    }
  }
  for (const TeamMembers& team : members) add_barrier_waits(team, wait_row, seconds_per_tick, master, slots);
  for (std::size_t w = 0; w < walks.size(); ++w) {
    for (const ParallelVisit& visit : walks[w].nested) nested[visit.team].emplace_back(w, &visit);
  }
  for (const auto& [id, team] : nested) add_barrier_waits(team, wait_row, seconds_per_tick, master, slots);

  result.teams.resize(threads.size());
  for (std::size_t w = 1; w < walks.size(); ++w) {
    for (const ParallelVisit& visit : walks[w].parallels) {
      result.teams[w - 1].push_back(ThreadSeverities::TeamEntry{visit.enter, visit.parent});
    }
  }

  // Idle threads: the master's serial time, on every worker.
  const std::size_t idle_row = registry.row("omp_idle_threads");
  for (const auto& [callpath, ticks] : walks[0].serial) {
    for (patterns::SeverityMap& slot : slots) {
      slot.add(idle_row, callpath, static_cast<double>(ticks) * seconds_per_tick);
    }
  }
  return result;
}

}  // namespace orrery::analyzer

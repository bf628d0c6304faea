// The analysis's replay steps (analysis_run.h): the network models, the wait
// states, their root causes, the critical path and the process's threads.

#include "analysis_run.h"
#include "orrery/analyzer/replay.h"
#include "orrery/analyzer/replay_critical_path.h"
#include "orrery/analyzer/replay_delay.h"
#include "orrery/analyzer/what_if_phase.h"
#include "vmpi.h"

namespace orrery::analyzer {
namespace {

ReplayStatistics sum_statistics(const ReplayStatistics& local, MPI_Comm world) {
  std::array<uint64_t, kReplayCounters.size()> counts{}, sums{};
  for (std::size_t i = 0; i < counts.size(); ++i) counts[i] = local.*kReplayCounters[i];
  vmpi::Reduce(counts.data(), sums.data(), static_cast<int>(counts.size()), MPI_UINT64_T, MPI_SUM,
               0, world);
  ReplayStatistics sum;
  for (std::size_t i = 0; i < sums.size(); ++i) sum.*kReplayCounters[i] = sums[i];
  vmpi::Reduce(&local.max_violation, &sum.max_violation, 1, MPI_INT64_T, MPI_MAX, 0, world);
  return sum;
}

/// The patterns of one other thread: instances of their own (patterns keep
/// per-location state), on a bus of their own, adding to the thread's slot.
struct ThreadPatterns {
  ThreadPatterns(patterns::SeverityMap& slot, const Definitions& definitions, const CallTree& tree,
                 double seconds_per_tick)
      : context{bus, slot, definitions, tree, registry, seconds_per_tick} {
    registry.attach_all(context);
  }
  patterns::PatternRegistry registry;
  EventBus bus;
  patterns::PatternContext context;
};

}  // namespace

void AnalysisRun::replay_wait_states() {
  // Messages or collectives may lack a side: no network model can replay them.
  const bool partial = incomplete_ || !lost_.empty() || untraced_thread_calls_ > 0;
  run_network_models(options_, {trace_, tree_, definitions_, *comms_, matching_, world_}, partial, phases_,
                     progress_, result_);
  ReplayOptions replay_options;
  replay_options.correct_clock_violations = false;
  // The clock condition's send enter times hold unless it or a what-if replay moved events.
  if (!clock_correction_.times_changed && !options_.what_if) replay_options.known_times = &message_times_;
  replay_options.raise_sends_completed = true;  // no backward replay below
  if (options_.delay_analysis) {  // the walk collects the delay analysis' wait states
    replay_options.wait_states = &handed_waits_;
    replay_options.definitions = &definitions_;
  }
  progress_("forward replay (messages)");
  phases_.run_or_abort("the forward replay", [&] {
    replay_forward(trace_, matching_, world_, bus_, replay_options, statistics_);
  });
  progress_("collective replay");
  phases_.run_or_abort("the collective replay", [&] {
    replay_collectives(trace_, definitions_, *comms_, bus_, statistics_, incomplete_);
  });
  phases_.run([&] {
    if (statistics_.collective_mismatches > 0) {
      throw InputError("the traces disagree: rank " + std::to_string(rank_) +
                       " saw a different number of collective operations than other members "
                       "of its communicators (" +
                       (untraced_thread_calls_ > 0
                            ? std::to_string(untraced_thread_calls_) +
                                  " MPI calls were made on threads that were not traced: measure with "
                                  "OpenMP on, without --no-openmp"
                            : std::string("a truncated or inconsistent trace")) +
                       ")");
    }
  });
}

void AnalysisRun::find_root_causes() {
  if (!options_.delay_analysis) return;
  progress_("delay analysis (root causes of wait states)");
  phases_.run_or_abort("the delay analysis", [&] {
    result_.delay = replay_delay(trace_, tree_, definitions_, *comms_, matching_, world_, bus_,
                                 &handed_waits_);
  });
  progress_("delay analysis: " + std::to_string(result_.delay.rounds) + " propagation rounds");
}

void AnalysisRun::follow_critical_path() {
  if (!options_.critical_path) return;
  progress_("critical path");
  phases_.run_or_abort("the critical-path analysis", [&] {
    result_.critical_path = replay_critical_path(trace_, tree_, definitions_, *comms_, matching_, world_, bus_);
  });
  const CriticalPathStatistics& path = result_.critical_path;
  if (path.last_rank != kNone) {
    progress_("critical path: ends on rank " + std::to_string(path.last_rank) + ", " +
              std::to_string(path.hops) + " moves between processes (" +
              std::to_string(path.looked_ahead) + " skipped by the look-ahead)" +
              (path.complete ? "" : " (cut short: inconsistent times)"));
  }
}

// The process's other threads (OpenMP), within the process; not for the
// rank-local archives of an incomplete run. Then their messages and
// collectives, whose replay events go to each thread's own patterns.
void AnalysisRun::analyze_threads() {
  phases_.run([&] {
    if (incomplete_ || traceless_) return;
    threads_ = analyze_openmp(options_.experiment, definitions_, static_cast<uint32_t>(rank_), tree_,
                              registry_, *severities_, seconds_per_tick());
  });
  std::vector<std::unique_ptr<ThreadPatterns>> threads;
  std::vector<const EventBus*> buses{&bus_};
  for (patterns::SeverityMap& slot : threads_.slots) {
    threads.push_back(std::make_unique<ThreadPatterns>(slot, definitions_, tree_, seconds_per_tick()));
    buses.push_back(&threads.back()->bus);
  }
  if (thread_messages_.active()) {
    progress_("replay of the other threads' messages");
    phases_.run_or_abort("the replay of the threads' messages", [&] {
      statistics_.messages +=
          thread_messages_.replay(trace_, definitions_, tree_, threads_.teams, buses, world_);
    });
  }
  if (thread_collectives_.active()) {
    progress_("replay of the collectives on the other threads");
    const uint64_t mismatches = statistics_.collective_mismatches;
    phases_.run_or_abort("the replay of the threads' collectives", [&] {
      thread_collectives_.replay(trace_, definitions_, *comms_, tree_, threads_.teams, buses, statistics_);
    });
    phases_.run([&] {
      if (statistics_.collective_mismatches > mismatches) {
        throw InputError("the traces disagree: rank " + std::to_string(rank_) +
                         " took part in a different number of collective operations of a communicator, "
                         "over all its threads, than other members of it (a truncated or inconsistent trace)");
      }
    });
  }
  for (const auto& thread : threads) thread->registry.finish_all(thread->context);
  registry_.finish_all(*context_);
  result_.statistics = sum_statistics(statistics_, world_);
}

}  // namespace orrery::analyzer

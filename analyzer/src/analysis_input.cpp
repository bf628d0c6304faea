// The analysis's input steps (analysis_run.h): definitions, the rank's
// trace, what every rank must agree on before the replays, the clock.

#include <algorithm>
#include <cstdio>

#include "analysis_run.h"
#include "orrery/trace/neighbor_collectives.h"
#include "orrery/analyzer/program_root.h"
#include "orrery/trace/trace_reader.h"
#include "vmpi.h"

namespace orrery::analyzer {
namespace {

/// Every rank's `text`, on rank 0 (empty elsewhere).
std::vector<std::string> gather_on_root(const std::string& text, MPI_Comm world) {
  int rank = 0, size = 0;
  vmpi::Comm_rank(world, &rank);
  vmpi::Comm_size(world, &size);
  int length = static_cast<int>(text.size());
  std::vector<int> lengths(static_cast<std::size_t>(size)), displs(lengths.size());
  vmpi::Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, world);
  int total = 0;
  for (std::size_t r = 0; r < lengths.size(); ++r) {
    displs[r] = total;
    total += lengths[r];
  }
  std::string all(static_cast<std::size_t>(rank == 0 ? total : 0), '\0');
  vmpi::Gatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), displs.data(), MPI_CHAR,
              0, world);
  std::vector<std::string> texts;
  if (rank != 0) return texts;
  for (std::size_t r = 0; r < lengths.size(); ++r) {
    texts.push_back(all.substr(static_cast<std::size_t>(displs[r]),
                               static_cast<std::size_t>(lengths[r])));
  }
  return texts;
}

/// True on every rank if it is true on any.
bool any_rank(bool local, MPI_Comm world) {
  int value = local ? 1 : 0;
  vmpi::Allreduce(MPI_IN_PLACE, &value, 1, MPI_INT, MPI_LOR, world);
  return value != 0;
}

}  // namespace

void Progress::operator()(const std::string& line) const {
  if (out_ == nullptr) return;
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  char stamp[32];
  std::snprintf(stamp, sizeof stamp, "[%7.2f s] ", elapsed);
  *out_ << "orrery-analyze: " << stamp << line << std::endl;
}

InputError AnalysisRun::wrong_size(std::size_t ranks) const {
  return InputError("the trace has " + std::to_string(ranks) + " ranks but the analysis runs on " +
                    std::to_string(size_) + "; run it on " + std::to_string(ranks) +
                    " processes or fewer: mpirun -np " + std::to_string(ranks) +
                    " orrery-analyze " + options_.experiment);
}

bool AnalysisRun::hosts_fewer(std::size_t ranks) {
  if (ranks <= static_cast<std::size_t>(size_) || !options_.fewer_processes_allowed) return false;
  result_.traced_ranks = static_cast<uint32_t>(ranks);
  return true;
}

double AnalysisRun::seconds_per_tick() const {
  return 1.0 / static_cast<double>(definitions_.timer_resolution);
}

// The grouping file, checked before the long phases.
void AnalysisRun::read_grouping_file() {
  phases_.run([&] {
    if (rank_ == 0 && !options_.groups_file.empty()) {
      group_rules_ = report::read_group_rules(options_.groups_file);
    }
  });
}

void AnalysisRun::read_definitions_of_run() {
  // A run that never reached MPI_Finalize left one archive per rank with
  // that rank's own definitions (incomplete.h): unified here, and the
  // truncation it causes is tolerated (and counted) later.
  incomplete_ = is_incomplete_experiment(options_.experiment);
  result_.incomplete = incomplete_;
  source_ = incomplete_ ? incomplete_archive(options_.experiment, static_cast<uint32_t>(rank_))
                        : options_.experiment;
  if (incomplete_) {
    read_unified_definitions();
    if (result_.traced_ranks != 0) return;
  } else {
    progress_("reading definitions of " + options_.experiment);
    phases_.run([&] {
      definitions_ = read_definitions(options_.experiment);
      if (hosts_fewer(definitions_.ranks.size())) return;
      if (definitions_.ranks.size() != static_cast<std::size_t>(size_)) {
        throw wrong_size(definitions_.ranks.size());
      }
    });
    if (result_.traced_ranks != 0) return;
  }
  // In-neighbours of this rank in topology communicators (neighbourhood collectives).
  phases_.run([&] {
    read_in_neighbors(options_.experiment, static_cast<uint32_t>(rank_),
                      incomplete_ ? &mapping_ : nullptr, definitions_);
  });
}

void AnalysisRun::read_unified_definitions() {
  progress_("incomplete run (no MPI_Finalize): reading each rank's own trace in " +
            options_.experiment + "/incomplete");
  phases_.run([&] {
    if (rank_ != 0) return;
    const uint32_t ranks = incomplete_world_size(options_.experiment);
    if (hosts_fewer(ranks)) return;
    if (ranks != static_cast<uint32_t>(size_)) throw wrong_size(ranks);
  });
  vmpi::Bcast(&result_.traced_ranks, 1, MPI_UINT32_T, 0, world_);
  if (result_.traced_ranks != 0) return;
  // Ranks that left no trace (killed by SIGKILL): the others are analyzed;
  // theirs is an empty trace, their values NaN.
  lost_ = ranks_without_trace(options_.experiment, static_cast<uint32_t>(size_));
  traceless_ = std::find(lost_.begin(), lost_.end(), static_cast<uint32_t>(rank_)) != lost_.end();
  Definitions local;
  phases_.run([&] {
    if (traceless_) {
      local.ranks.resize(static_cast<std::size_t>(size_));
      local.ranks[static_cast<std::size_t>(rank_)] =
          RankDef{static_cast<uint64_t>(rank_), "rank " + std::to_string(rank_) + " (no trace)", ""};
      return;
    }
    local = read_definitions(source_);
    if (local.ranks.size() != static_cast<std::size_t>(size_)) throw wrong_size(local.ranks.size());
  });
  definitions_ = unify_definitions(local, world_, mapping_);
  progress_("unified " + std::to_string(definitions_.regions.size()) + " regions and " +
            std::to_string(definitions_.comms.size()) + " communicators of " +
            std::to_string(size_) + " ranks");
  // How each rank ended, for the summary.
  result_.rank_endings = gather_on_root(
      incomplete_reason(options_.experiment, static_cast<uint32_t>(rank_)), world_);
  if (rank_ == 0) progress_(describe_endings(result_.rank_endings));
}

void AnalysisRun::read_trace() {
  progress_("reading traces");
  phases_.run([&] {
    if (traceless_) {
      trace_.rank = static_cast<uint32_t>(rank_);
      return;
    }
    trace_.keep_folded_spans = options_.delay_analysis || options_.critical_path;
    read_rank_trace(source_, definitions_, static_cast<uint32_t>(rank_), trace_,
                    incomplete_ ? &mapping_ : nullptr);
  });
  result_.events = trace_.events_read;
  result_.events_kept = trace_.events.size();
  uint64_t total_events = 0;
  vmpi::Reduce(&result_.events, &total_events, 1, MPI_UINT64_T, MPI_SUM, 0, world_);
  // Which reader took the events: a rank libotf2 read is about 5x slower to
  // read (the user forced it, or Orrery's decoder does not take its file).
  const uint32_t own_by_libotf2 = !traceless_ && trace_.read_by_libotf2 ? 1 : 0;
  uint32_t by_libotf2 = 0;
  vmpi::Reduce(&own_by_libotf2, &by_libotf2, 1, MPI_UINT32_T, MPI_SUM, 0, world_);
  progress_("read " + std::to_string(total_events) + " events" +
            (by_libotf2 == 0 ? std::string(" (Orrery's OTF2 decoder)")
                             : " (libotf2 read " + std::to_string(by_libotf2) + " of " +
                                   std::to_string(size_) +
                                   " ranks: ORRERY_TRACE_DECODER=otf2, or files Orrery's decoder "
                                   "does not take)"));
}

void AnalysisRun::complete_definitions() {
  // Regions for OTF2 measurement events (other producers' buffer flushes):
  // all ranks define them if any rank used them, so the ids agree.
  if (any_rank(trace_.measurement_regions_used, world_)) add_measurement_regions(definitions_);
  // One root per process: when any rank's events are not enclosed by one
  // region, all ranks define the same synthetic root (same run.json, so the
  // same name and id) and the ranks that need it get it.
  if (any_rank(needs_root(trace_), world_)) {
    enclose_in_root(trace_, add_root_region(definitions_,
                                            agreed_program_name(options_.experiment, trace_, world_)));
  }
}

void AnalysisRun::prepare_replay() {
  progress_("building call trees");
  tree_ = build_call_tree(trace_);
  comms_ = std::make_unique<Communicators>(definitions_, static_cast<uint32_t>(rank_), world_);
  match_thread_messages();
  untraced_thread_calls_ = untraced_thread_mpi_calls(options_.experiment);
  const bool one_sided = incomplete_ || untraced_thread_calls_ > 0;  // messages may lack a side
  phases_.run([&] {
    std::string error;
    matching_ = MessageMatching::build(trace_, definitions_, *comms_, world_, error, one_sided);
    if (!error.empty()) throw InputError(error);
  });
  progress_("checked " + std::to_string(trace_.sends.size()) + " sends of rank 0");

  severities_ = std::make_unique<patterns::SeverityMap>(registry_.size(), tree_.size());
  context_ = std::make_unique<patterns::PatternContext>(patterns::PatternContext{
      bus_, *severities_, definitions_, tree_, registry_, seconds_per_tick()});
  registry_.attach_all(*context_);

  statistics_.unclosed_regions = trace_.unclosed_regions;
  statistics_.unmatched_requests = trace_.unmatched_requests;
  if (one_sided) {
    statistics_.sends_unmatched = matching_.unmatched_sends();
    statistics_.recvs_unmatched = matching_.unmatched_recvs();
  }
  if (incomplete_) {
    for (const CollectiveOp& op : trace_.collectives) {
      if (!op.nonblocking && op.complete_call == kNone) ++statistics_.collectives_interrupted;
    }
  }
}

// Messages of the other threads: read and matched per process before the
// MPI thread's own matching, which they leave out (thread_messages.h); their
// collectives likewise (thread_collectives.h).
void AnalysisRun::match_thread_messages() {
  phases_.run([&] {
    if (!incomplete_ && !traceless_) thread_messages_.read(options_.experiment, definitions_, trace_);
  });
  phases_.run([&] {
    std::string error;
    thread_messages_.match(trace_, definitions_, *comms_, world_, error);
    if (!error.empty()) throw InputError(error);
  });
  phases_.run([&] {
    thread_collectives_.select(trace_, thread_messages_.threads(), thread_messages_.any_collectives(), definitions_,
                               *comms_, world_);
  });
}

// The clock condition, in its own phase (clock_condition.h); the forward
// replay then sees the corrected times and corrects nothing itself.
void AnalysisRun::correct_clocks() {
  ClockConditionParameters parameters;
  parameters.correct = options_.correct_clock_violations;
  parameters.min_latency =
      std::max<int64_t>(1, static_cast<int64_t>(definitions_.timer_resolution / 1000000));
  progress_(options_.correct_clock_violations ? "clock condition (correcting violations)"
                                              : "clock condition (counting violations)");
  phases_.run_or_abort("the clock correction", [&] {
    clock_correction_ = correct_clock_condition(trace_, matching_, world_, parameters, &message_times_);
  });
  statistics_.clock_violations = clock_correction_.corrected;
  statistics_.max_violation = clock_correction_.max_jump;
}

}  // namespace orrery::analyzer

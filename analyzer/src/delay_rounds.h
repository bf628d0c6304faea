#pragma once
// The propagation rounds of the delay analysis (replay_delay.cpp): each
// round, every wait state's long-term waiting travels to its delayer, which
// passes the share its own waiting explains on to its own wait states
// (point-to-point: PassingShares; collectives: CollectiveDelays).

#include <mpi.h>

#include <vector>

#include "delay_model.h"

namespace orrery::analyzer::delay {

/// How a rank ran its rounds (for tests: the choice is local, the messages
/// are the same either way).
enum class RoundsPath {
  kFused,    ///< one pass over the wait states per round
  kGeneral,  ///< a pass per part (any number of shares per wait state)
};

/// Runs the rounds until the long-term values moved by less than
/// kDelayTolerance of all waiting (summed over `world`), or kMaxDelayRounds;
/// `propagated` (one value per wait state, zero) ends with the newest
/// values; `next`: the general path's second buffer (sized here if the
/// caller did not; the fused path works in place). Returns whether the
/// rounds converged: then the values the last round carried wait in
/// `subset` for the final carry (RecordSubset::carry_others); if not, it
/// takes the newest. `first_shares`: the collectives' shares of the first
/// round, those of the waiting alone (add_first_shares). Sets
/// statistics.rounds and .converged. Collective over `world` and the
/// collectives' communicators.
bool run_rounds(const std::vector<WaitState>& waits, const PassingShares& shares,
                RecordSubset& subset, CollectiveDelays& collectives, MPI_Comm world,
                std::vector<double>& propagated, std::vector<double>& next,
                std::vector<double>& first_shares, DelayStatistics& statistics);

/// What the delayers' waiting alone passed on through the collectives
/// (`first_shares` from run_rounds), added to `passed_on` per wait state as
/// a zeroed vector that took CollectiveDelays::add_shares would be. Local.
void add_first_shares(CollectiveDelays& collectives, const std::vector<double>& first_shares,
                      std::vector<double>& passed_on);

/// Tests: forbids (false) or allows (true, the default) the fused pass on
/// this process (then PassingShares need not take its compact form); and
/// which path the last run_rounds took.
void allow_fused_rounds(bool allowed);
[[nodiscard]] bool fused_rounds_allowed();
[[nodiscard]] RoundsPath last_rounds_path();

}  // namespace orrery::analyzer::delay

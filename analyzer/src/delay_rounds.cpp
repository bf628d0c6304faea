// The propagation rounds of the delay analysis (delay_rounds.h).
//
// A round's parts — the point-to-point shares (PassingShares), the
// collectives' shares (CollectiveDelays), how far the values moved, the
// values the next round sends — each went over millions of wait states
// (comm-only benchmark trace: 833 k per rank, ~all of them inside the
// intervals of a few Allreduces). When every wait state gets one share of
// each kind at most, in wait-state order (PassingShares::ordered,
// CollectiveShareTargets::ascending), the round is one pass in wait-state
// order instead: each value is 0.0 plus its point-to-point share plus its
// collective share, the same operations in the same order as the parts
// (bit-identical), with every store in order. Otherwise the parts run one
// after the other (the general path).

#include "delay_rounds.h"

#include <algorithm>
#include <atomic>
#include <cmath>

#include "reproducible_sum.h"

namespace orrery::analyzer::delay {
namespace {


std::atomic<bool> fused_allowed{true};
std::atomic<RoundsPath> last_path{RoundsPath::kGeneral};

/// One round in one pass over the wait states (the fused path): the new
/// values into `next`, and into the subset's outgoing values if its records
/// go in wait-state order; returns how far the values moved (the sum of
/// |next - propagated| in wait-state order).
double fused_round(const PassingShares& shares, const std::vector<double>& arrived,
                   const CollectiveShareTargets& targets, const std::vector<double>& round_shares,
                   RecordSubset& subset, const std::vector<double>& propagated,
                   std::vector<double>& next) {
  const PassingShares::Compact* const delays = shares.compact().data();
  const std::size_t delay_count = shares.compact().size();
  std::size_t k = 0;
  // The collectives' runs, one after the other (empty ones skipped).
  const ShareRun* run = targets.runs.data();
  const ShareRun* const runs_end = run + targets.runs.size();
  const std::pair<uint32_t, int64_t>* own = nullptr;
  const std::pair<uint32_t, int64_t>* own_end = nullptr;
  double run_share = 0.0, run_total = 1.0;
  const auto next_run = [&] {
    while (own == own_end && run != runs_end) {
      own = run->waits;
      own_end = own + run->count;
      run_share = round_shares[run->share];
      run_total = run->total;
      ++run;
    }
  };
  next_run();
  const bool fill_out = subset.ordered();
  const uint32_t* const kept = subset.kept_waits().data();
  const std::size_t kept_count = subset.kept_waits().size();
  double* const out = subset.outgoing().data();
  std::size_t s = 0;
  const double* const before = propagated.data();
  double* const to = next.data();
  double moved = 0.0;
  for (std::size_t w = 0; w < next.size(); ++w) {
    double value = 0.0;
    if (k < delay_count && delays[k].wait == w) {
      value = PassingShares::ordered_share(delays[k], arrived[k]);
      ++k;
    }
    if (own != own_end && own->first == w) {  // as CollectiveDelays::add_shares
      const double weight = static_cast<double>(own->second) / run_total;
      value += run_share * weight;
      if (++own == own_end) next_run();
    }
    moved += std::abs(value - before[w]);
    to[w] = value;
    if (fill_out && s < kept_count && kept[s] == w) out[s++] = value;
  }
  return moved;
}

}  // namespace

bool run_rounds(const std::vector<WaitState>& waits, PassingShares& shares, RecordSubset& subset,
                CollectiveDelays& collectives, MPI_Comm world, std::vector<double>& propagated,
                std::vector<double>& next, std::vector<double>& first_shares,
                DelayStatistics& statistics) {
  const CollectiveShareTargets& targets = collectives.share_targets();
  const bool fused = fused_allowed.load() && shares.ordered() && targets.ascending;
  if (fused) shares.keep_compact_only();
  last_path.store(fused ? RoundsPath::kFused : RoundsPath::kGeneral);
  double all_waiting = 0.0;  // the same every round
  for (const WaitState& wait : waits) all_waiting += static_cast<double>(wait.waiting);
  std::vector<double> round_shares;
  for (int round = 0;; ++round) {
    // The passing delays' records arrive in the delays' order (passing).
    // The first round carries zeros, which the subset holds before its
    // first exchange: no message.
    const std::vector<double>* arrived = &subset.received();
    if (round > 0) {
      arrived = fused && subset.ordered() ? &subset.exchange() : &subset.to_delayers(propagated);
    }
    // Converged when the long-term values moved by less than
    // kDelayTolerance of all waiting (summed over ranks) in this round: a
    // chain of waits (a ring, iteration after iteration) passes on a share
    // below one at each hop, so what the next hops add fades.
    double moved[2] = {0.0, all_waiting};
    collectives.round_shares(waits, &propagated, round_shares);
    if (round == 0) first_shares = round_shares;  // the shares of the waiting alone
    if (fused) {
      moved[0] = fused_round(shares, *arrived, targets, round_shares, subset, propagated, next);
    } else {
      std::fill(next.begin(), next.end(), 0.0);
      shares.pass_on(*arrived, next);
      collectives.add_shares(round_shares, next);
      for (std::size_t k = 0; k < waits.size(); ++k) moved[0] += std::abs(next[k] - propagated[k]);
    }
    propagated.swap(next);  // next: the values carried in this round
    sum_over_members(moved, 2, world);
    statistics.rounds = static_cast<uint64_t>(round) + 1;
    if (moved[0] <= kDelayTolerance * moved[1]) return true;
    if (round + 1 >= kMaxDelayRounds) {
      statistics.converged = false;
      return false;  // the final carry takes the newest values
    }
  }
}

void add_first_shares(CollectiveDelays& collectives, const std::vector<double>& first_shares,
                      std::vector<double>& passed_on) {
  const CollectiveShareTargets& targets = collectives.share_targets();
  if (!targets.ascending) {
    std::vector<double> through_collectives(passed_on.size(), 0.0);
    collectives.add_shares(first_shares, through_collectives);
    for (std::size_t k = 0; k < passed_on.size(); ++k) passed_on[k] += through_collectives[k];
    return;
  }
  // One share per wait state at most: 0.0 plus it is what that vector
  // would hold there (0.0 elsewhere, which adds nothing).
  for (const ShareRun& run : targets.runs) {
    for (uint32_t e = 0; e < run.count; ++e) {
      const double weight = static_cast<double>(run.waits[e].second) / run.total;
      passed_on[run.waits[e].first] += 0.0 + first_shares[run.share] * weight;
    }
  }
}

void allow_fused_rounds(bool allowed) { fused_allowed.store(allowed); }

RoundsPath last_rounds_path() { return last_path.load(); }

}  // namespace orrery::analyzer::delay

// The propagation rounds of the delay analysis (delay_rounds.h).
//
// A round's parts — the point-to-point shares (PassingShares), the
// collectives' shares (CollectiveDelays), how far the values moved, the
// values the next round sends — each went over millions of wait states
// (comm-only benchmark trace: 833 k per rank, ~all of them inside the
// intervals of a few Allreduces). When every wait state gets one share of
// each kind at most, in wait-state order (PassingShares::ordered,
// CollectiveShareTargets::ascending, RecordSubset::ordered), the round is
// one pass in wait-state order instead, in place: each value is 0.0 plus
// its point-to-point share plus its collective share, the same operations
// in the same order as the parts (bit-identical), with every store in
// order. Otherwise the parts run one after the other over a second buffer
// (the general path).

#include "delay_rounds.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <type_traits>
#include <utility>

#include "reproducible_sum.h"

namespace orrery::analyzer::delay {
namespace {

std::atomic<bool> fused_allowed{true};
std::atomic<RoundsPath> last_path{RoundsPath::kGeneral};

/// One round in one pass over the wait states (the fused path), in place:
/// the new values replace the old in `values` and go to the subset's
/// outgoing values (the next round's), the old ones of the wait states
/// whose records the subset does not send are held; returns how far the
/// values moved (the sum of |new - old| in wait-state order).
double fused_round(const PassingShares& shares, const std::vector<double>& arrived,
                   const CollectiveShareTargets& targets, const std::vector<double>& round_shares,
                   RecordSubset& subset, std::vector<double>& values) {
  // The passing delays in pool order (the others skipped as they come).
  const Delay* const delays = shares.pool().delays.data();
  // The k-th passing delay's own wait is the pool's wait k: read a chunk
  // at a time (no chunk lookup per delay).
  const auto& own_waits = shares.pool().waits;
  constexpr std::size_t kWaitChunk = std::remove_cvref_t<decltype(own_waits)>::kChunkSize;
  const OwnWait* own_wait = nullptr;
  std::size_t own_room = 0;
  std::size_t d = 0, k = 0;
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
  const uint32_t* const kept = subset.kept_waits().data();
  const std::size_t kept_count = subset.kept_waits().size();
  double* const out = subset.outgoing().data();
  std::size_t s = 0;
  const uint32_t* const other = subset.other_waits().data();
  const std::size_t other_count = subset.other_waits().size();
  double* const held = subset.held().data();
  std::size_t o = 0;
  double* const value_of = values.data();
  double moved = 0.0;
  for (std::size_t w = 0; w < values.size(); ++w) {
    double value = 0.0;
    if (shares.has_share(w)) {
      while (!shares.passing(d)) ++d;
      if (own_room == 0) {  // the next chunk of the pool's waits
        own_wait = &own_waits[k];
        own_room = kWaitChunk - (k & (kWaitChunk - 1));
      }
      value = PassingShares::ordered_share(delays[d++], own_wait->ticks, arrived[k]);
      ++own_wait;
      --own_room;
      ++k;
    }
    if (own != own_end && own->first == w) {  // as CollectiveDelays::add_shares
      const double weight = static_cast<double>(own->second) / run_total;
      value += run_share * weight;
      if (++own == own_end) next_run();
    }
    const double old = value_of[w];
    moved += std::abs(value - old);
    if (s < kept_count && kept[s] == w) out[s++] = value;  // the next round's
    if (o < other_count && other[o] == w) held[o++] = old;
    value_of[w] = value;
  }
  return moved;
}

/// The sum of all waiting, in wait-state order. Apart from run_rounds so
/// that the sum stays in a register (inlined there, it went through the
/// stack: a store and a load per wait state, millions of them).
[[gnu::noinline]] double total_waiting(const std::vector<WaitState>& waits) {
  double sum = 0.0;
  for (const WaitState& wait : waits) sum += static_cast<double>(wait.waiting);
  return sum;
}

}  // namespace

bool run_rounds(const std::vector<WaitState>& waits, const PassingShares& shares,
                RecordSubset& subset, CollectiveDelays& collectives, MPI_Comm world,
                std::vector<double>& propagated, std::vector<double>& next,
                std::vector<double>& first_shares, DelayStatistics& statistics) {
  const CollectiveShareTargets& targets = collectives.share_targets();
  const bool fused =
      fused_allowed.load() && shares.ordered() && targets.ascending && subset.ordered();
  last_path.store(fused ? RoundsPath::kFused : RoundsPath::kGeneral);
  const double all_waiting = total_waiting(waits);  // the same every round
  // The general path's second buffer: each round's values go there, and
  // the two swap (the fused one works in place).
  if (!fused) next.resize(propagated.size());
  std::vector<double> round_shares;
  bool converged = false;
  for (int round = 0;; ++round) {
    // The passing delays' records arrive in the delays' order (passing).
    // The first round carries zeros, which the subset holds before its
    // first exchange: no message. The fused pass left the values to send.
    const std::vector<double>& arrived =
        round == 0 ? subset.received()
                   : (fused ? subset.exchange() : subset.to_delayers(propagated));
    // Converged when the long-term values moved by less than
    // kDelayTolerance of all waiting (summed over ranks) in this round: a
    // chain of waits (a ring, iteration after iteration) passes on a share
    // below one at each hop, so what the next hops add fades.
    double moved[2] = {0.0, all_waiting};
    collectives.round_shares(waits, &propagated, round_shares);
    if (round == 0) first_shares = round_shares;  // the shares of the waiting alone
    if (fused) {
      moved[0] = fused_round(shares, arrived, targets, round_shares, subset, propagated);
    } else {
      std::fill(next.begin(), next.end(), 0.0);
      shares.pass_on(arrived, next);
      collectives.add_shares(round_shares, next);
      for (std::size_t k = 0; k < waits.size(); ++k) moved[0] += std::abs(next[k] - propagated[k]);
      propagated.swap(next);  // next: the values carried in this round
    }
    sum_over_members(moved, 2, world);
    statistics.rounds = static_cast<uint64_t>(round) + 1;
    if (moved[0] <= kDelayTolerance * moved[1]) {
      converged = true;
      break;
    }
    if (round + 1 >= kMaxDelayRounds) {
      statistics.converged = false;
      break;
    }
  }
  // Converged, the final carry takes the values the last round carried:
  // the selected records' reached their delayers then; the others' the
  // fused pass held (the general path takes them from its second buffer).
  if (converged && !fused) {
    std::vector<double>& held = subset.held();
    const std::vector<uint32_t>& other = subset.other_waits();
    for (std::size_t o = 0; o < other.size(); ++o) held[o] = next[other[o]];
  }
  return converged;
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

bool fused_rounds_allowed() { return fused_allowed.load(); }

RoundsPath last_rounds_path() { return last_path.load(); }

}  // namespace orrery::analyzer::delay

#pragma once
// The propagation rounds of the delay analysis (replay_delay.cpp): each
// round, every wait state's long-term waiting travels to its delayer, which
// passes the share its own waiting explains on to its own wait states
// (point-to-point: PassingShares, over a RecordSubset of the records;
// collectives: CollectiveDelays). PassingShares and RecordSubset are
// defined in delay_channel.cpp, the rounds in delay_rounds.cpp.

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "delay_model.h"
#include "delay_of_record.h"

namespace orrery::analyzer::delay {

/// The delays that pass waiting on (the only delays that keep own wait
/// states: DelayPool::compare), for the propagation rounds, which read them
/// once per round in order, and for the costs at the end.
class PassingShares {
 public:
  /// Whether a delay passes waiting on (the others' shares are zero in
  /// every round).
  [[nodiscard]] static bool passes_on(const Delay& d) {
    return d.passes();
  }
  /// The passing delays of `pool`, by their incoming records in record
  /// order (`delay_of_record`: per incoming record, kNone for none;
  /// `passes`: per incoming record, whether its delay passes waiting on,
  /// passes_on); `waits`: this rank's wait states. Tries the ordered form
  /// first if `ordered`.
  PassingShares(const DelayPool& pool, const DelayOfRecord& delay_of_record,
                const std::vector<uint8_t>& passes, std::size_t waits, bool ordered);
  /// Whether every passing delay has exactly one own wait state and both
  /// ascend in record order (the usual case: each delay's interval holds one
  /// wait of its own): every wait state then gets one share at most, in
  /// wait-state order, from the passing delays in pool order, and a round
  /// can go over the wait states once (has_share, ordered_share).
  [[nodiscard]] bool ordered() const { return ordered_; }
  /// For ordered(): whether wait state w gets a point-to-point share, and
  /// whether the pool's delay d is a passing one.
  [[nodiscard]] bool has_share(std::size_t w) const { return bit(share_bits_, w); }
  [[nodiscard]] bool passing(std::size_t d) const { return bit(delay_bits_, d); }
  /// For ordered(): a passing delay's share of a round, 0.0 plus
  /// (waiting + arrived) · excess_waiting / total · ticks / waits_total of
  /// its one own wait (`own_ticks`, which is its waits_total; 0.0 for
  /// none): pass_on's operations on a zeroed `next`, in its order. In
  /// ordered(), the k-th passing delay's own wait is the pool's wait k.
  [[nodiscard]] static double ordered_share(const Delay& delay, int64_t own_ticks, double arrived) {
    double value = 0.0;
    const double amount = (delay.waiting() + arrived) * delay.excess_waiting / delay.total;
    if (amount > 0) {
      const auto ticks = static_cast<double>(own_ticks);
      value += amount * ticks / ticks;
    }
    return value;
  }
  [[nodiscard]] const DelayPool& pool() const { return pool_; }
  /// For passing delay k: (waiting + arrived[k]) · excess_waiting / total,
  /// shared over its own wait states by their waiting, added to `next`.
  void pass_on(const std::vector<double>& arrived, std::vector<double>& next) const;
  /// Shares `amount` out over the own wait states of `pool`'s delay `d`
  /// (one that passes waiting on) by their waiting: apply(wait state, share).
  template <class Apply>
  static void share(const DelayPool& pool, uint32_t d, double amount, Apply apply) {
    if (!pool.delays[d].passes() || amount <= 0) return;
    const double waits_total = static_cast<double>(pool.waits_total(d));
    for (uint32_t w = pool.waits_begin(d), end = pool.waits_end(d); w < end; ++w) {
      apply(pool.waits[w].wait, amount * static_cast<double>(pool.waits[w].ticks) / waits_total);
    }
  }

 private:
  const DelayPool& pool_;
  /// Not ordered(): per passing delay, its index in the pool.
  std::vector<uint32_t> delay_;
  /// ordered(): per wait state, whether it gets a share, and per delay of
  /// the pool, whether it passes (a bit each).
  std::vector<uint64_t> share_bits_, delay_bits_;
  bool ordered_ = false;
  static bool bit(const std::vector<uint64_t>& bits, std::size_t i) {
    return ((bits[i >> 6] >> (i & 63)) & 1) != 0;
  }
  bool try_ordered(const DelayOfRecord& delay_of_record, const std::vector<uint8_t>& passes,
                   std::size_t waits);
};

/// The part of a RecordChannel that the delayers select (the records whose
/// values they need in the propagation rounds: their delay passes waiting
/// on); the waiters learn the selection in one exchange.
class RecordSubset {
 public:
  /// The selection `keep_in` per incoming record, as the waiters learnt it
  /// (`keep_out` per outgoing record); `record_wait` the wait state of each
  /// outgoing record. Local: the channel's ranks agree on the selection.
  RecordSubset(const RecordChannel& channel, const std::vector<uint8_t>& keep_in,
               const std::vector<uint8_t>& keep_out, const std::vector<uint32_t>& record_wait);
  /// per_wait[record_wait[r]] for every selected outgoing record r → the
  /// values of the selected incoming records (in record order).
  const std::vector<double>& to_delayers(const std::vector<double>& per_wait);
  /// Whether the selected outgoing records' wait states ascend, and so do
  /// the others' (one partner, or records in wait-state order): a pass over
  /// the wait states in order can then keep the others' values as it goes
  /// (held()).
  [[nodiscard]] bool ordered() const { return ordered_; }
  /// What the last exchange brought (zeros before the first).
  [[nodiscard]] const std::vector<double>& received() const { return received_; }
  /// The wait states of the selected outgoing records, and the values the
  /// next exchange() sends for them (to_delayers gathers them itself).
  [[nodiscard]] const std::vector<uint32_t>& kept_waits() const { return kept_wait_; }
  [[nodiscard]] std::vector<double>& outgoing() { return send_; }
  /// Sends outgoing() as it stands → the values of the selected incoming records.
  const std::vector<double>& exchange();
  /// The wait states of the outgoing records outside the selection.
  [[nodiscard]] const std::vector<uint32_t>& other_waits() const { return other_wait_; }
  /// Per outgoing record outside the selection: a value kept for it.
  [[nodiscard]] std::vector<double>& held() { return held_; }
  /// Collective: sends held() to the delayers → one value per incoming
  /// record, all of them in record order: the selected ones' as the last
  /// exchange brought them, the others' as held() came. Takes the buffer of
  /// the values received (one more only for the others').
  [[nodiscard]] std::vector<double> carry_others();

 private:
  MPI_Comm world_ = MPI_COMM_NULL;
  BlockLayout out_, in_, other_out_, other_in_;
  std::vector<uint32_t> kept_wait_;   ///< the wait state of each selected outgoing record
  std::vector<uint32_t> other_wait_;  ///< the wait state of each other outgoing record
  std::vector<uint32_t> other_in_record_;  ///< the incoming records not selected
  std::vector<double> send_, received_, held_;
  bool ordered_ = false;
};

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

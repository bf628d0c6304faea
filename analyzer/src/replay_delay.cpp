// Delay analysis of the point-to-point wait states (replay_delay.h).
//
// Cost per rank: linear in its messages for finding the wait states and
// their synchronization points (one MessageMatching exchange), and
// linear in its wait states and their intervals' kept events afterwards:
// each waiter sends its delayer one record per wait state (RecordChannel),
// and every later exchange — one per propagation round, one at the end —
// carries one double per record between the two partners only. The
// comparison of two profiles is a table lookup per call path (no sorting),
// and the delays' variable parts live in two chunked arrays (DelayPool).

#include "orrery/analyzer/replay_delay.h"

#include <algorithm>
#include <ctime>
#include <utility>
#include <vector>

#include "batch_publisher.h"
#include "delay_records.h"
#include "delay_rounds.h"
#include "orrery/analyzer/replay.h"
#include "orrery/replay/delay_events.h"
#include "orrery/analyzer/synchronization_interval.h"
#include "vmpi.h"

namespace orrery::analyzer {

using namespace delay;  // NOLINT: the model of this analysis

DelayStatistics replay_delay(const LocalTrace& trace, const CallTree& tree,
                             const Definitions& definitions, const Communicators& comms,
                             const MessageMatching& matching, MPI_Comm world, const EventBus& bus,
                             HandedWaitStates* handed) {
  DelayStatistics statistics;
  // Receivers' posting times at the senders (as the forward replay kept them).
  std::vector<std::pair<uint32_t, uint32_t>> message_syncs;  // per point-to-point wait state
  std::vector<int64_t> exchanged;  // unless the forward replay kept them (no copy)
  if (!trace.recv_post_enters_known) exchanged = receive_post_enters_at_senders(trace, matching, world);
  std::vector<WaitState> waits;
  if (handed != nullptr && handed->complete) {  // as the forward replay's walk found them
    waits = std::move(handed->waits);
    message_syncs = std::move(handed->syncs);
    handed->complete = false;
  } else {
    waits = find_wait_states(trace, definitions,
                             trace.recv_post_enters_known ? trace.recv_post_enters : exchanged, message_syncs);
  }
  const std::size_t point_to_point = waits.size();
  CollectiveDelays collectives(trace, definitions, comms);
  collectives.find_waits(waits);
  statistics.wait_states = waits.size();

  const CallpathKeys keys(tree);
  RecordChannel channel;
  DelayOfRecord delay_of_record;  // per incoming record
  DelayPool pool;
  // The records' phase: what it needs (synchronization points, the
  // profiler) is freed when it ends.
  const std::vector<uint32_t> record_wait = [&] {  // per outgoing record
    // Synchronization points of a Late Sender pair (the sender D, the
    // receiver W) are their previous messages from D to W: at D the send's
    // posting call (Enter), at W the completing call's Leave, the two events
    // the message aligns. For Late Receiver (W sends, D receives) likewise
    // the previous messages from W to D: at W the Leave of the send's
    // completing call, at D the posting call of the receive.
    Synchronizations sync(trace, definitions);
    std::vector<std::pair<uint32_t, uint32_t>> wait_calls;
    wait_calls.reserve(waits.size());
    for (uint32_t k = 0; k < waits.size(); ++k) wait_calls.emplace_back(waits[k].call, k);
    sort_in_runs(wait_calls);  // in runs: Late Sender, Late Receiver, collectives
    // The profiler reads the wait states' waiting in place (no copy).
    IntervalProfiler profiler(trace, tree, std::move(wait_calls),
                              WaitingTicks{waits.empty() ? nullptr : &waits[0].waiting,
                                           sizeof(WaitState)});
    RecordPlan plan = plan_records(waits, point_to_point, matching);
    channel.open(plan.peers, plan.records, world);
    collectives.compare_intervals(profiler, keys);
    // Which operation of the partner each message is: the waiter names it
    // by its route number, the delayer finds its own operation locally.
    const MessageMatching::RouteIndex routes = matching.route_index();
    RecordContext context{trace, matching, routes, message_syncs, sync, collectives, profiler, keys};
    exchange_records(waits, plan, channel, context, pool, delay_of_record);
    return std::move(plan.record_wait);
  }();
  std::vector<std::pair<uint32_t, uint32_t>>().swap(message_syncs);
  std::vector<Delay>& delays = pool.delays;
  // Every loop over the delays below goes in the order of their records
  // (source by source): sums come out the same however the batches
  // interleaved the sources.

  // Rounds: each wait state's long-term waiting travels to its delayer,
  // which passes the share its own waiting explains on to its wait states.
  // Only the delays that pass waiting on need it during the rounds (the
  // others' values matter for their long-term costs: one full carry after
  // the last round, of the values the last round carried).
  // The rounds work on a dense array (the long-term waiting per wait
  // state), not on the wait states and delays: on a communication-heavy
  // trace they are streams of millions of values, and every byte of the
  // structs around them would be read again each round.
  std::vector<double> propagated(waits.size(), 0.0);
  std::vector<double> next;  // the general path's second buffer (delay_rounds.h)
  std::vector<double> first_shares;  // the collectives' shares of the waiting alone
  std::vector<double> delay_propagated;  // per incoming record, after the rounds
  bool ordered_shares = false;  // the passing delays' own waits in PassingShares' ordered form
  {
    bool converged = false;
    {  // the rounds' buffers are freed before a full carry's are built (its peak)
      std::vector<uint8_t> passes(delay_of_record.size(), 0);
      for (std::size_t r = 0; r < delay_of_record.size(); ++r) {
        const uint32_t d = delay_of_record[r];
        passes[r] = d != kNone && PassingShares::passes_on(delays[d]) ? 1 : 0;
      }
      // In the fused rounds' ordered form if they can run (delay_rounds.h).
      const PassingShares shares(pool, delay_of_record, passes, waits.size(),
                                 fused_rounds_allowed() && collectives.share_targets().ascending);
      // Allocated with the first when it will be needed (no later peak).
      if (!shares.ordered()) next.resize(waits.size());
      ordered_shares = shares.ordered();
      // Which of their records pass waiting on, to the waiters (a byte each).
      std::vector<uint8_t> passes_out = channel.to_waiters(passes);
      RecordSubset passing_records(channel, passes, passes_out, record_wait);
      std::vector<uint8_t>().swap(passes);
      std::vector<uint8_t>().swap(passes_out);
      converged = run_rounds(waits, shares, passing_records, collectives, world, propagated,
                             next, first_shares, statistics);
      // The waiters' long-term waiting at their delayers, as the last round
      // carried it: only the records outside the subset still travel.
      if (converged) delay_propagated = passing_records.carry_others();
    }
    std::vector<double>().swap(next);
    if (!converged) {  // the newest values, one full carry
      std::vector<double> per_record(record_wait.size());
      for (std::size_t r = 0; r < record_wait.size(); ++r) per_record[r] = propagated[record_wait[r]];
      delay_propagated = channel.to_delayers(per_record);
    }
  }

  // Costs at this rank's delaying call paths; what its waiting passed on
  // (through its point-to-point delays, then through its collectives).
  // The subscribers, looked up once for the loops below.
  BatchPublisher<DelayCostBatch, DelayCostFound> costs(bus);
  std::vector<double> passed_on(waits.size(), 0.0);
  uint32_t own_wait = 0;  // ordered_shares: the k-th passing delay's own wait is wait k
  for (std::size_t r = 0; r < delay_of_record.size(); ++r) {
    const uint32_t d = delay_of_record[r];
    if (d == kNone) continue;
    const Delay& delay = delays[d];
    if (delay.total <= 0) {
      statistics.unexplained += delay.waiting();
      continue;
    }
    for (uint32_t e = pool.excess_begin(d), end = pool.excess_end(d); e < end; ++e) {
      const double share = pool.excess[e].ticks / delay.total;
      costs.add(DelayCostFound{delay.kind(), pool.excess[e].callpath, delay.waiting() * share,
                               delay_propagated[r] * share});
    }
    // Only the passing delays keep own wait states.
    if (!PassingShares::passes_on(delay)) continue;
    const double amount = delay.waiting() * delay.excess_waiting / delay.total;
    if (ordered_shares) {  // as PassingShares::share with one own wait
      const OwnWait own = pool.waits[own_wait++];
      const auto ticks = static_cast<double>(own.ticks);
      if (amount > 0) passed_on[own.wait] += amount * ticks / ticks;
      continue;
    }
    PassingShares::share(pool, d, amount,
                         [&](uint32_t wait, double value) { passed_on[wait] += value; });
  }
  costs.flush();  // before the collectives' costs
  // Freed before the fractions' vector is built (the same peak as one of them).
  std::vector<double>().swap(delay_propagated);
  add_first_shares(collectives, first_shares, passed_on);
  std::vector<double>().swap(first_shares);
  collectives.publish_costs(waits, propagated, bus, statistics);
  // Which part of each wait the partner passed on: back to the waiters
  // (negative: no delay found there). Every point-to-point wait state has
  // one record at most: its fraction goes where its long-term waiting was.
  std::vector<double>& indirect_fraction = propagated;
  {
    std::vector<double> fractions(delay_of_record.size(), -1.0);
    for (std::size_t r = 0; r < delay_of_record.size(); ++r) {
      const uint32_t d = delay_of_record[r];
      if (d != kNone && delays[d].total > 0)
        fractions[r] = delays[d].excess_waiting / delays[d].total;
    }
    const std::vector<double> back = channel.to_waiters(fractions);
    std::fill(indirect_fraction.begin(), indirect_fraction.end(), 0.0);
    for (std::size_t r = 0; r < back.size() && r < record_wait.size(); ++r) {
      if (back[r] >= 0) indirect_fraction[record_wait[r]] = back[r];
    }
  }
  BatchPublisher<WaitStateClassifiedBatch, WaitStateClassified> classes(bus);
  for (std::size_t k = 0; k < point_to_point; ++k) {
    const WaitState& wait = waits[k];
    const auto w = static_cast<double>(wait.waiting);
    classes.add(WaitStateClassified{wait.kind, wait.callpath(), w, w * indirect_fraction[k],
                                    std::min(w, passed_on[k])});
  }
  classes.flush();
  return statistics;
}

}  // namespace orrery::analyzer

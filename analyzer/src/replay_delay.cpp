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
#include <cmath>
#include <utility>
#include <vector>

#include "batched_publisher.h"
#include "delay_records.h"
#include "orrery/analyzer/replay.h"
#include "orrery/replay/delay_events.h"
#include "orrery/analyzer/synchronization_interval.h"
#include "reproducible_sum.h"
#include "vmpi.h"

namespace orrery::analyzer {

using namespace delay;  // NOLINT: the model of this analysis

namespace {

/// The sum of |a[k] - b[k]| in the order of k (four per step: the same
/// additions in the same order, fewer loop steps).
double moved_between(const std::vector<double>& a, const std::vector<double>& b) {
  double sum = 0.0;
  const std::size_t n = a.size();
  std::size_t k = 0;
  for (; k + 4 <= n; k += 4) {
    sum += std::abs(a[k] - b[k]);
    sum += std::abs(a[k + 1] - b[k + 1]);
    sum += std::abs(a[k + 2] - b[k + 2]);
    sum += std::abs(a[k + 3] - b[k + 3]);
  }
  for (; k < n; ++k) sum += std::abs(a[k] - b[k]);
  return sum;
}

}  // namespace

DelayStatistics replay_delay(const LocalTrace& trace, const CallTree& tree,
                             const Definitions& definitions, const Communicators& comms,
                             const MessageMatching& matching, MPI_Comm world, const EventBus& bus) {
  DelayStatistics statistics;
  const EventStore& events = trace.events;
  // Receivers' posting times at the senders (as the forward replay kept them).
  std::vector<std::pair<uint32_t, uint32_t>> message_syncs;  // per point-to-point wait state
  std::vector<WaitState> waits = find_wait_states(
      trace, definitions, receive_post_enters_at_senders(trace, matching, world), message_syncs);
  const std::size_t point_to_point = waits.size();
  CollectiveDelays collectives(trace, definitions, comms);
  collectives.find_waits(waits);
  statistics.wait_states = waits.size();

  const CallpathKeys keys(tree);
  RecordChannel channel;
  std::vector<uint32_t> delay_of_record;  // per incoming record
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
  std::vector<uint8_t> passes;  // per incoming record: its delay passes waiting on
  const PassingShares shares(pool, delay_of_record, passes, waits.size());
  // Which of their records pass waiting on, to the waiters (a byte each).
  std::vector<uint8_t> passes_out = channel.to_waiters(passes);
  collectives.prepare_propagation(waits);
  // The rounds work on dense arrays (the long-term waiting per wait state,
  // this round's and the next), not on the wait states and delays: on a
  // communication-heavy trace they are streams of millions of values, and
  // every byte of the structs around them would be read again each round.
  std::vector<double> propagated(waits.size(), 0.0), next(waits.size());
  std::vector<double> delay_propagated;  // per incoming record, after the rounds
  {  // the rounds' buffers are freed at the end
    const std::vector<double>* carried = &next;  // the values the last carry sent
    {  // the subset's buffers are freed before the final carry's are built (its peak)
      RecordSubset passing_records(channel, passes, passes_out, record_wait);
      std::vector<uint8_t>().swap(passes);
      std::vector<uint8_t>().swap(passes_out);
      // pass_on stores the first share of each wait state it targets: the
      // others that the collectives add to need clearing each round (the
      // rest stay 0 in both arrays).
      const std::vector<uint32_t> collective_only =
          collectives.propagation_targets([&](uint32_t wait) { return !shares.targets(wait); });
      double all_waiting = 0.0;  // the same every round
      for (const WaitState& wait : waits) all_waiting += static_cast<double>(wait.waiting);
      // The passing delays' records arrive in the delays' order (passing).
      for (int round = 0;; ++round) {
        // The first round carries nothing yet (propagated is all 0).
        const std::vector<double>& arrived = round == 0 ? passing_records.zeros_before_first()
                                                        : passing_records.to_delayers(propagated);
        shares.pass_on(arrived, next);
        for (const uint32_t wait : collective_only) next[wait] = 0.0;
        collectives.propagate(waits, &propagated, next);
        // Converged when the long-term values moved by less than
        // kDelayTolerance of all waiting (summed over ranks) in this round: a
        // chain of waits (a ring, iteration after iteration) passes on a share
        // below one at each hop, so what the next hops add fades.
        double moved[2] = {moved_between(next, propagated), all_waiting};
        propagated.swap(next);  // next: the values carried in this round
        sum_over_members(moved, 2, world);
        statistics.rounds = static_cast<uint64_t>(round) + 1;
        if (moved[0] <= kDelayTolerance * moved[1]) break;
        if (round + 1 >= kMaxDelayRounds) {
          statistics.converged = false;
          carried = &propagated;  // the final carry takes the newest values
          break;
        }
      }
    }
    // The waiters' long-term waiting at their delayers: one full carry.
    std::vector<double> per_record(record_wait.size());
    for (std::size_t r = 0; r < record_wait.size(); ++r) per_record[r] = (*carried)[record_wait[r]];
    delay_propagated = channel.to_delayers(per_record);
  }

  // Costs at this rank's delaying call paths; what its waiting passed on
  // (through its point-to-point delays, then through its collectives).
  // The subscribers, looked up once for the loops below.
  BatchedPublisher<DelayCostFound, DelayCostsFound> publish_cost(bus);
  std::vector<double>& passed_on = next;
  std::fill(passed_on.begin(), passed_on.end(), 0.0);
  // Which part of each wait the partner passed on, for the waiters
  // (negative: no delay found there), filled in the same loop: into
  // delay_propagated, each record's value once it is used (no second array).
  std::vector<double>& fractions = delay_propagated;
  for (std::size_t r = 0, k = 0; r < delay_of_record.size(); ++r) {
    const uint32_t d = delay_of_record[r];
    const double long_term = delay_propagated[r];
    fractions[r] = -1.0;
    if (d == kNone) continue;
    const Delay& delay = delays[d];
    if (delay.total <= 0) {
      statistics.unexplained += delay.waiting();
      continue;
    }
    fractions[r] = delay.excess_waiting / delay.total;
    for (uint32_t e = delay.excess_begin, end = pool.excess_end(d); e < end; ++e) {
      const double share = pool.excess[e].ticks / delay.total;
      publish_cost(DelayCostFound{delay.kind(), pool.excess[e].callpath, delay.waiting() * share,
                                  long_term * share});
    }
    // Only the passing delays (in record order) keep own wait states.
    if (k < shares.size() && shares.delay(k) == d) {
      shares.share(k++, delay.waiting() * delay.excess_waiting / delay.total,
                   [&](uint32_t wait, double value) { passed_on[wait] += value; });
    }
  }
  publish_cost.flush();  // before the collectives' costs
  // The fractions to the waiters now: their buffer is freed before the next ones.
  std::vector<double> back = channel.to_waiters(fractions);
  std::vector<double>().swap(delay_propagated);
  {
    std::vector<double> through_collectives(waits.size(), 0.0);
    collectives.add_first_shares(through_collectives);  // the first round's: of the waiting alone
    for (std::size_t k = 0; k < waits.size(); ++k) passed_on[k] += through_collectives[k];
  }
  collectives.publish_costs(waits, propagated, bus, statistics);
  // The fractions back at the waiters. Every point-to-point wait state has
  // one record at most: its fraction goes where its long-term waiting was.
  std::vector<double>& indirect_fraction = propagated;
  {
    std::fill(indirect_fraction.begin(), indirect_fraction.end(), 0.0);
    for (std::size_t r = 0; r < back.size() && r < record_wait.size(); ++r) {
      if (back[r] >= 0) indirect_fraction[record_wait[r]] = back[r];
    }
    std::vector<double>().swap(back);
  }
  BatchedPublisher<WaitStateClassified, WaitStatesClassified> publish_class(bus);
  for (std::size_t k = 0; k < point_to_point; ++k) {
    const WaitState& wait = waits[k];
    const auto w = static_cast<double>(wait.waiting);
    publish_class(WaitStateClassified{wait.kind, events[wait.call].ref(), w,
                                      w * indirect_fraction[k], std::min(w, passed_on[k])});
  }
  publish_class.flush();
  return statistics;
}

}  // namespace orrery::analyzer

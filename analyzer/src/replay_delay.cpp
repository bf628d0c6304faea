// Delay analysis of the point-to-point wait states (replay_delay.h).

#include "orrery/analyzer/replay_delay.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <numeric>
#include <unordered_map>
#include <utility>
#include <vector>

#include "orrery/analyzer/delay_events.h"
#include "orrery/analyzer/partner_exchange.h"
#include "orrery/analyzer/synchronization_interval.h"
#include "delay_model.h"

namespace orrery::analyzer {
namespace {

using namespace delay;  // NOLINT: the model of this analysis

/// One side's synchronization events with each peer, for interval starts:
/// (peer, event index, own operation index), sorted.
class SyncPoints {
 public:
  void add(uint32_t peer, uint32_t event, uint32_t op) { points_.push_back({peer, event, op}); }
  void sort() { std::sort(points_.begin(), points_.end()); }
  /// The last point with `peer` before event `before` ({kNone, kNone} if none):
  /// (event index, own operation index).
  [[nodiscard]] std::pair<uint32_t, uint32_t> last(uint32_t peer, uint32_t before) const {
    auto it = std::lower_bound(points_.begin(), points_.end(), Point{peer, before, 0});
    if (it == points_.begin()) return {kNone, kNone};
    --it;
    return it->peer == peer ? std::make_pair(it->event, it->op) : std::make_pair(kNone, kNone);
  }

 private:
  struct Point {
    uint32_t peer, event, op;
    auto operator<=>(const Point&) const = default;
  };
  std::vector<Point> points_;
};

/// How the waiter's interval started, so that the delayer starts its own at
/// the same synchronization: a message (by the delayer's operation index),
/// a collective instance (communicator, ordinal), or none.
enum class SyncKind : int64_t { kNone = 0, kMessage = 1, kCollective = 2 };

uint32_t posting_call(const MessageOp& op) {
  return op.post_call == kNone ? op.post_event : op.post_call;
}

/// Finds this rank's Late Sender and Late Receiver instances as the
/// patterns do (late_sender.cpp, late_receiver.cpp): one per call, the
/// latest partner counts.
std::vector<WaitState> find_wait_states(const LocalTrace& trace, const Definitions& definitions,
                                        const std::vector<int64_t>& recv_enters) {
  const EventStore& events = trace.events;
  std::vector<WaitState> waits;
  const auto world_rank = [&](const MessageOp& op) {
    return definitions.world_rank(op.comm, op.peer, trace.rank);
  };
  // Late Sender: receives grouped by the call that completed them.
  std::vector<std::pair<uint32_t, uint32_t>> by_call;  // (call, receive)
  for (uint32_t j = 0; j < trace.recvs.size() && j < trace.send_enters.size(); ++j) {
    const MessageOp& op = trace.recvs[j];
    if (op.cancelled || op.complete_call == kNone || trace.send_enters[j] == kNoValue) continue;
    by_call.emplace_back(op.complete_call, j);
  }
  std::sort(by_call.begin(), by_call.end());
  std::unordered_map<uint32_t, int64_t> latest_send_of_call;
  for (std::size_t k = 0; k < by_call.size();) {
    const uint32_t call = by_call[k].first;
    uint32_t latest = by_call[k].second;
    for (; k < by_call.size() && by_call[k].first == call; ++k) {
      if (trace.send_enters[by_call[k].second] > trace.send_enters[latest]) latest = by_call[k].second;
    }
    const int64_t send_enter = trace.send_enters[latest];
    latest_send_of_call[call] = send_enter;
    const int64_t waiting = std::min(send_enter, trace.exit_time(call)) - events[call].time;
    if (waiting <= 0) continue;
    waits.push_back(WaitState{WaitKind::kLateSender, call, waiting, latest,
                              world_rank(trace.recvs[latest])});
  }
  // Late Receiver: sends grouped by the call that completed them.
  std::vector<std::pair<uint32_t, uint32_t>> sends_by_call;
  for (uint32_t i = 0; i < trace.sends.size() && i < recv_enters.size(); ++i) {
    const MessageOp& op = trace.sends[i];
    if (op.cancelled || op.complete_call == kNone || recv_enters[i] == kNoValue) continue;
    sends_by_call.emplace_back(op.complete_call, i);
  }
  std::sort(sends_by_call.begin(), sends_by_call.end());
  for (std::size_t k = 0; k < sends_by_call.size();) {
    const uint32_t call = sends_by_call[k].first;
    uint32_t latest = sends_by_call[k].second;
    for (; k < sends_by_call.size() && sends_by_call[k].first == call; ++k) {
      if (recv_enters[sends_by_call[k].second] > recv_enters[latest]) latest = sends_by_call[k].second;
    }
    const int64_t recv_enter = recv_enters[latest];
    const int64_t exit = trace.exit_time(call);
    if (exit <= recv_enter) continue;  // an eager send: it did not wait
    const auto found = latest_send_of_call.find(call);
    const int64_t send_enter = found == latest_send_of_call.end() ? INT64_MIN : found->second;
    const int64_t start = std::max(events[call].time, std::min(send_enter, exit));
    const int64_t waiting = std::min(recv_enter, exit) - start;
    if (waiting <= 0) continue;
    waits.push_back(WaitState{WaitKind::kLateReceiver, call, waiting, latest,
                              world_rank(trace.sends[latest])});
  }
  return waits;
}

/// Sends each record block to its rank and returns the blocks that came,
/// as (source, values).
std::vector<std::pair<uint32_t, std::vector<int64_t>>> exchange_records(
    const std::map<uint32_t, std::vector<int64_t>>& outgoing, MPI_Comm world) {
  std::vector<uint32_t> destinations;
  std::vector<uint64_t> counts;
  BlockLayout to;
  std::vector<int64_t> out;
  for (const auto& [peer, values] : outgoing) {
    destinations.push_back(peer);
    counts.push_back(values.size());
    to.add(peer, values.size());
    out.insert(out.end(), values.begin(), values.end());
  }
  const auto senders = discover_senders(destinations, counts, world);
  BlockLayout from;
  for (const auto& [source, count] : senders) from.add(source, static_cast<std::size_t>(count));
  std::vector<int64_t> in(from.total);
  exchange_blocks(out.data(), to, in.data(), from, MPI_INT64_T, world);
  std::vector<std::pair<uint32_t, std::vector<int64_t>>> blocks;
  for (std::size_t k = 0; k < from.peers.size(); ++k) {
    const auto first = in.begin() + static_cast<std::ptrdiff_t>(from.displs[k]);
    blocks.emplace_back(from.peers[k], std::vector<int64_t>(
                                           first, first + static_cast<std::ptrdiff_t>(from.counts[k])));
  }
  return blocks;
}

}  // namespace

namespace delay {

/// The delay of this rank (profile `mine`) against a waiter's profile
/// (`theirs`: call path key, ticks, sorted by key; `their_waiting`).
Delay compare(const IntervalProfile& mine, const std::vector<uint64_t>& keys,
              const std::vector<std::pair<uint64_t, int64_t>>& theirs, int64_t their_waiting) {
  Delay delay;
  for (const auto& [callpath, ticks] : mine.time) {
    auto it = std::lower_bound(theirs.begin(), theirs.end(), std::make_pair(keys[callpath], INT64_MIN));
    const int64_t other = it != theirs.end() && it->first == keys[callpath] ? it->second : 0;
    if (ticks > other) {
      delay.excess.emplace_back(callpath, static_cast<double>(ticks - other));
      delay.total += static_cast<double>(ticks - other);
    }
  }
  if (mine.waiting > their_waiting) {
    delay.excess_waiting = static_cast<double>(mine.waiting - their_waiting);
    delay.total += delay.excess_waiting;
  }
  delay.waits = mine.waits;
  for (const auto& wait : mine.waits) delay.waits_total += wait.second;
  return delay;
}

}  // namespace delay

DelayStatistics replay_delay(const LocalTrace& trace, const CallTree& tree,
                             const Definitions& definitions, const Communicators& comms,
                             const MessageMatching& matching, MPI_Comm world,
                             const EventBus& bus) {
  DelayStatistics statistics;
  const EventStore& events = trace.events;
  // Receivers' posting times at the senders (as the backward replay has them).
  std::vector<int64_t> post_enters(trace.recvs.size());
  for (std::size_t j = 0; j < trace.recvs.size(); ++j) {
    post_enters[j] = events[posting_call(trace.recvs[j])].time;
  }
  const std::vector<int64_t> recv_enters = matching.to_senders(post_enters, world);
  std::vector<WaitState> waits = find_wait_states(trace, definitions, recv_enters);
  const std::size_t point_to_point = waits.size();
  CollectiveDelays collectives(trace, definitions, comms);
  collectives.find_waits(waits);
  statistics.wait_states = waits.size();

  // Which operation of the partner each message is: the delayer learns of
  // its late message by its own index.
  std::vector<int64_t> indices(std::max(trace.sends.size(), trace.recvs.size()));
  std::iota(indices.begin(), indices.end(), int64_t{0});
  const std::vector<int64_t> send_index_of_recv =
      matching.to_receivers(std::vector<int64_t>(indices.begin(), indices.begin() +
                                                 static_cast<std::ptrdiff_t>(trace.sends.size())),
                            world);
  const std::vector<int64_t> recv_index_of_send =
      matching.to_senders(std::vector<int64_t>(indices.begin(), indices.begin() +
                                               static_cast<std::ptrdiff_t>(trace.recvs.size())),
                          world);

  // Synchronization points of a Late Sender pair (the sender D, the
  // receiver W) are their previous messages from D to W: at D the send's
  // posting call (Enter), at W the completing call's Leave, the two events
  // the message aligns. For Late Receiver (W sends, D receives) likewise the
  // previous messages from W to D: at W the Leave of the send's completing
  // call, at D the posting call of the receive.
  SyncPoints received_from, sent_to;    // the waiter's side, by Leave
  SyncPoints posted_sends, posted_recvs;  // the delayer's fallback, by Enter
  for (uint32_t j = 0; j < trace.recvs.size(); ++j) {
    const MessageOp& op = trace.recvs[j];
    if (op.cancelled || op.complete_call == kNone) continue;
    const uint32_t peer = definitions.world_rank(op.comm, op.peer, trace.rank);
    if (peer == kNone) continue;
    received_from.add(peer, events[op.complete_call].link, j);
    posted_recvs.add(peer, posting_call(op), j);
  }
  for (uint32_t i = 0; i < trace.sends.size(); ++i) {
    const MessageOp& op = trace.sends[i];
    if (op.cancelled || op.complete_call == kNone) continue;
    const uint32_t peer = definitions.world_rank(op.comm, op.peer, trace.rank);
    if (peer == kNone) continue;
    sent_to.add(peer, events[op.complete_call].link, i);
    posted_sends.add(peer, posting_call(op), i);
  }
  for (SyncPoints* points : {&received_from, &sent_to, &posted_sends, &posted_recvs}) points->sort();

  std::vector<std::pair<uint32_t, uint32_t>> wait_calls;
  std::vector<int64_t> waiting;
  for (uint32_t k = 0; k < waits.size(); ++k) {
    wait_calls.emplace_back(waits[k].call, k);
    waiting.push_back(waits[k].waiting);
  }
  std::sort(wait_calls.begin(), wait_calls.end());
  IntervalProfiler profiler(trace, tree, std::move(wait_calls), std::move(waiting));
  const std::vector<uint64_t> keys = callpath_keys(tree);

  // The waiters' side: one record per wait state to its delayer:
  // kind, the delayer's op, the synchronization (kind, a, b), waiting, the
  // interval's waiting, n, n x (key, ticks).
  std::map<uint32_t, std::vector<int64_t>> outgoing;
  for (std::size_t k = 0; k < point_to_point; ++k) {
    const WaitState& wait = waits[k];
    const int64_t partner_op = wait.kind == WaitKind::kLateSender ? send_index_of_recv[wait.op]
                                                                  : recv_index_of_send[wait.op];
    if (wait.delayer == kNone || partner_op == kNoValue) continue;
    // The previous synchronization with the delayer: a message of the same
    // direction, or a collective with it, whichever this rank saw last.
    const bool late_sender = wait.kind == WaitKind::kLateSender;
    const auto [message_event, own_op] =
        (late_sender ? received_from : sent_to).last(wait.delayer, wait.call);
    const CollectiveSync collective = collectives.last_sync_with(wait.delayer, wait.call);
    SyncKind sync = SyncKind::kNone;
    uint32_t from = kNone;
    int64_t sync_a = 0, sync_b = 0;
    if (message_event != kNone && (collective.leave == kNone || message_event > collective.leave)) {
      const int64_t their_op = late_sender ? send_index_of_recv[own_op] : recv_index_of_send[own_op];
      if (their_op != kNoValue) {
        sync = SyncKind::kMessage;
        from = message_event;
        sync_a = their_op;
      }
    }
    if (sync == SyncKind::kNone && collective.leave != kNone) {
      sync = SyncKind::kCollective;
      from = collective.leave;
      sync_a = collective.comm;
      sync_b = collective.ordinal;
    }
    const IntervalProfile profile = profiler.profile(from, wait.call);
    std::vector<int64_t>& record = outgoing[wait.delayer];
    record.push_back(static_cast<int64_t>(wait.kind));
    record.push_back(partner_op);
    record.push_back(static_cast<int64_t>(sync));
    record.push_back(sync_a);
    record.push_back(sync_b);
    record.push_back(wait.waiting);
    record.push_back(profile.waiting);
    record.push_back(static_cast<int64_t>(profile.time.size()));
    for (const auto& [callpath, ticks] : profile.time) {
      record.push_back(static_cast<int64_t>(keys[callpath]));
      record.push_back(ticks);
    }
  }
  const auto blocks = exchange_records(outgoing, world);
  collectives.compare_intervals(profiler, keys);

  // The delayers' side: the delay in each interval, found once.
  std::vector<Delay> delays;
  std::vector<uint32_t> delay_of_send(trace.sends.size(), kNone);
  std::vector<uint32_t> delay_of_recv(trace.recvs.size(), kNone);
  std::vector<std::pair<uint64_t, int64_t>> theirs;
  for (const auto& [source, values] : blocks) {
    for (std::size_t at = 0; at + 8 <= values.size();) {
      const auto kind = static_cast<WaitKind>(values[at]);
      const auto op = static_cast<uint32_t>(values[at + 1]);
      const auto sync = static_cast<SyncKind>(values[at + 2]);
      const int64_t sync_a = values[at + 3];
      const int64_t sync_b = values[at + 4];
      const int64_t waited = values[at + 5];
      const int64_t their_waiting = values[at + 6];
      const auto n = static_cast<std::size_t>(values[at + 7]);
      at += 8;
      theirs.clear();
      for (std::size_t e = 0; e < n && at + 1 < values.size(); ++e, at += 2) {
        theirs.emplace_back(static_cast<uint64_t>(values[at]), values[at + 1]);
      }
      std::sort(theirs.begin(), theirs.end());
      const bool late_sender = kind == WaitKind::kLateSender;
      const MessageTable& table = late_sender ? trace.sends : trace.recvs;
      if (op >= table.size()) continue;
      const uint32_t to = posting_call(table[op]);
      // Start where the waiter started: the same message or collective.
      uint32_t from = kNone;
      if (sync == SyncKind::kMessage) {
        const auto index = static_cast<std::size_t>(sync_a);
        if (index < table.size()) from = posting_call(table[index]);
      } else if (sync == SyncKind::kCollective) {
        from = collectives.leave_of(static_cast<uint32_t>(sync_a), static_cast<std::size_t>(sync_b));
      }
      if (from != kNone && from >= to) {
        // Not before this side's end (messages overtaking on other tags):
        // this side's own last synchronization of that direction.
        from = (late_sender ? posted_sends : posted_recvs).last(source, to).first;
      }
      const IntervalProfile mine = profiler.profile(from, to);
      Delay delay = compare(mine, keys, theirs, their_waiting);
      delay.kind = kind;
      delay.waiting = static_cast<double>(waited);
      (late_sender ? delay_of_send : delay_of_recv)[op] = static_cast<uint32_t>(delays.size());
      delays.push_back(std::move(delay));
    }
  }

  // Rounds: each wait state's long-term waiting travels to its delayer,
  // which passes the share its own waiting explains on to its wait states.
  std::vector<int64_t> per_recv(trace.recvs.size()), per_send(trace.sends.size());
  const auto carry_to_delayers = [&] {
    std::fill(per_recv.begin(), per_recv.end(), kNoValue);
    std::fill(per_send.begin(), per_send.end(), kNoValue);
    for (std::size_t k = 0; k < point_to_point; ++k) {
      const WaitState& wait = waits[k];
      (wait.kind == WaitKind::kLateSender ? per_recv : per_send)[wait.op] = to_bits(wait.propagated);
    }
    const std::vector<int64_t> at_sends = matching.to_senders(per_recv, world);
    const std::vector<int64_t> at_recvs = matching.to_receivers(per_send, world);
    for (std::size_t i = 0; i < at_sends.size() && i < delay_of_send.size(); ++i) {
      if (delay_of_send[i] != kNone && at_sends[i] != kNoValue) {
        delays[delay_of_send[i]].propagated = from_bits(at_sends[i]);
      }
    }
    for (std::size_t j = 0; j < at_recvs.size() && j < delay_of_recv.size(); ++j) {
      if (delay_of_recv[j] != kNone && at_recvs[j] != kNoValue) {
        delays[delay_of_recv[j]].propagated = from_bits(at_recvs[j]);
      }
    }
  };
  std::vector<double> next(waits.size());
  for (int round = 0;; ++round) {
    carry_to_delayers();
    std::fill(next.begin(), next.end(), 0.0);
    for (const Delay& delay : delays) {
      if (delay.total <= 0) continue;
      const double passed = (delay.waiting + delay.propagated) * delay.excess_waiting / delay.total;
      share_over_waits(delay, passed, [&](uint32_t wait, double value) { next[wait] += value; });
    }
    collectives.propagate(waits, next, nullptr);
    // Converged when the long-term values moved by less than
    // kDelayTolerance of all waiting (summed over ranks) in this round: a
    // chain of waits (a ring, iteration after iteration) passes on a share
    // below one at each hop, so what the next hops add fades.
    double moved[2] = {0.0, 0.0};
    for (std::size_t k = 0; k < waits.size(); ++k) {
      moved[0] += std::abs(next[k] - waits[k].propagated);
      moved[1] += static_cast<double>(waits[k].waiting);
      waits[k].propagated = next[k];
    }
    MPI_Allreduce(MPI_IN_PLACE, moved, 2, MPI_DOUBLE, MPI_SUM, world);
    statistics.rounds = static_cast<uint64_t>(round) + 1;
    if (moved[0] <= kDelayTolerance * moved[1]) break;
    if (round + 1 >= kMaxDelayRounds) {
      statistics.converged = false;
      carry_to_delayers();
      break;
    }
  }

  // Costs at this rank's delaying call paths; what its waiting passed on.
  for (const Delay& delay : delays) {
    if (delay.total <= 0) {
      statistics.unexplained += delay.waiting;
      continue;
    }
    for (const auto& [callpath, excess] : delay.excess) {
      const double share = excess / delay.total;
      bus.publish(DelayCostFound{delay.kind, callpath, delay.waiting * share,
                                 delay.propagated * share});
    }
    share_over_waits(delay, delay.waiting * delay.excess_waiting / delay.total,
                     [&](uint32_t wait, double value) { waits[wait].passed_on += value; });
  }
  std::vector<double> passed_on(waits.size(), 0.0);
  collectives.propagate(waits, next, &passed_on);
  for (std::size_t k = 0; k < waits.size(); ++k) waits[k].passed_on += passed_on[k];
  collectives.publish_costs(waits, bus, statistics);
  // Which part of each wait the partner passed on: back to the waiters.
  std::fill(per_recv.begin(), per_recv.end(), kNoValue);
  std::fill(per_send.begin(), per_send.end(), kNoValue);
  for (std::size_t i = 0; i < delay_of_send.size(); ++i) {
    const uint32_t d = delay_of_send[i];
    if (d != kNone && delays[d].total > 0) per_send[i] = to_bits(delays[d].excess_waiting / delays[d].total);
  }
  for (std::size_t j = 0; j < delay_of_recv.size(); ++j) {
    const uint32_t d = delay_of_recv[j];
    if (d != kNone && delays[d].total > 0) per_recv[j] = to_bits(delays[d].excess_waiting / delays[d].total);
  }
  const std::vector<int64_t> fraction_at_recvs = matching.to_receivers(per_send, world);
  const std::vector<int64_t> fraction_at_sends = matching.to_senders(per_recv, world);
  for (std::size_t k = 0; k < point_to_point; ++k) {
    WaitState& wait = waits[k];
    const std::vector<int64_t>& fractions =
        wait.kind == WaitKind::kLateSender ? fraction_at_recvs : fraction_at_sends;
    if (wait.op < fractions.size() && fractions[wait.op] != kNoValue) {
      wait.indirect_fraction = from_bits(fractions[wait.op]);
    }
    const auto w = static_cast<double>(wait.waiting);
    bus.publish(WaitStateClassified{wait.kind, events[wait.call].ref(), w,
                                    w * wait.indirect_fraction, std::min(w, wait.passed_on)});
  }
  return statistics;
}

}  // namespace orrery::analyzer

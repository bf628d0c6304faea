// Delay analysis of the point-to-point wait states (replay_delay.h).
//
// Cost per rank: linear in its messages for finding the wait states and
// their synchronization points (three MessageMatching exchanges), and
// linear in its wait states and their intervals' kept events afterwards:
// each waiter sends its delayer one record per wait state (RecordChannel),
// and every later exchange — one per propagation round, one at the end —
// carries one double per record between the two partners only. The
// comparison of two profiles is a table lookup per call path (no sorting),
// and the delays' variable parts live in two flat arrays (DelayPool).

#include "orrery/analyzer/replay_delay.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <unordered_map>
#include <utility>
#include <vector>

#include "delay_model.h"
#include "orrery/analyzer/delay_events.h"
#include "orrery/analyzer/synchronization_interval.h"

namespace orrery::analyzer {
namespace {

using namespace delay;  // NOLINT: the model of this analysis

/// How the waiter's interval started, so that the delayer starts its own at
/// the same synchronization: a message (by the delayer's operation index),
/// a collective instance (communicator, ordinal), or none.
enum class SyncKind : int64_t { kNone = 0, kMessage = 1, kCollective = 2 };

/// A record: header, then n x (call path key, ticks).
///   [0] kind | sync kind << 8 | n << 16   [1] the delayer's operation
///   [2] sync a (operation or communicator)  [3] sync b (ordinal)
///   [4] the waiting   [5] the waiter's own waiting in the interval
constexpr std::size_t kHeader = 6;

std::size_t entries_of(int64_t head) { return static_cast<std::size_t>(head >> 16); }

uint32_t posting_call(const MessageOp& op) {
  return op.post_call == kNone ? op.post_event : op.post_call;
}

/// What both sides need to start their intervals at the same place.
struct Synchronizations {
  SyncPoints received_from, sent_to;  ///< the waiter's side, by Leave
  /// The delayer's fallback, by Enter (built on first use: rarely needed).
  SyncPoints posted_sends, posted_recvs;
  bool posted_built = false;
};

void add_completions(const LocalTrace& trace, const MessageTable& table, WorldRanks& world_rank,
                     SyncPoints& points) {
  for (uint32_t j = 0; j < table.size(); ++j) {
    const MessageOp& op = table[j];
    if (op.cancelled || op.complete_call == kNone) continue;
    const uint32_t peer = world_rank(op.comm, op.peer);
    if (peer != kNone) points.add(peer, trace.events[op.complete_call].link, j);
  }
  points.finish();
}

void add_postings(const MessageTable& table, WorldRanks& world_rank, SyncPoints& points) {
  for (uint32_t j = 0; j < table.size(); ++j) {
    const MessageOp& op = table[j];
    if (op.cancelled || op.complete_call == kNone) continue;
    const uint32_t peer = world_rank(op.comm, op.peer);
    if (peer != kNone) points.add(peer, posting_call(op), j);
  }
  points.finish();
}

/// The waiters' side: one record per point-to-point wait state (the first
/// `point_to_point` of `waits`) to its delayer, grouped by destination
/// (ascending), in wait order within each; `record_wait` gets the wait
/// state of each outgoing record in that order.
OutgoingRecords build_records(const std::vector<WaitState>& waits, std::size_t point_to_point,
                              const std::vector<int64_t>& send_index_of_recv,
                              const std::vector<int64_t>& recv_index_of_send, Synchronizations& sync,
                              const CollectiveDelays& collectives, IntervalProfiler& profiler,
                              const CallpathKeys& keys, std::vector<uint32_t>& record_wait) {
  const auto partner_op_of = [&](const WaitState& wait, uint32_t op) {
    return wait.kind == WaitKind::kLateSender ? send_index_of_recv[op] : recv_index_of_send[op];
  };
  // The destinations, ascending (few: the partners of this rank), and the
  // wait states in destination order (a counting sort: stable).
  std::unordered_map<uint32_t, uint32_t> block_of;
  for (std::size_t k = 0; k < point_to_point; ++k) {
    const WaitState& wait = waits[k];
    if (wait.delayer != kNone && partner_op_of(wait, wait.op) != kNoValue) {
      block_of.emplace(wait.delayer, 0);
    }
  }
  OutgoingRecords out;
  for (const auto& entry : block_of) out.peers.push_back(entry.first);
  std::sort(out.peers.begin(), out.peers.end());
  for (uint32_t b = 0; b < out.peers.size(); ++b) block_of[out.peers[b]] = b;
  out.records.assign(out.peers.size(), 0);
  out.sizes.assign(out.peers.size(), 0);
  std::vector<uint32_t> block_of_wait(point_to_point, kNone);
  uint32_t last_peer = kNone, last_block = 0;
  for (std::size_t k = 0; k < point_to_point; ++k) {
    const WaitState& wait = waits[k];
    if (wait.delayer == kNone || partner_op_of(wait, wait.op) == kNoValue) continue;
    if (wait.delayer != last_peer) {
      last_peer = wait.delayer;
      last_block = block_of[last_peer];
    }
    block_of_wait[k] = last_block;
    ++out.records[last_block];
  }
  std::vector<std::size_t> next_slot(out.peers.size() + 1, 0);
  for (std::size_t b = 0; b < out.peers.size(); ++b) next_slot[b + 1] = next_slot[b] + out.records[b];
  record_wait.assign(next_slot.back(), 0);
  for (std::size_t k = 0; k < point_to_point; ++k) {
    if (block_of_wait[k] != kNone) record_wait[next_slot[block_of_wait[k]]++] = static_cast<uint32_t>(k);
  }
  std::vector<uint32_t>().swap(block_of_wait);

  IntervalProfile profile;
  const auto append_record = [&](const WaitState& wait) {
    const int64_t partner_op = partner_op_of(wait, wait.op);
    // The previous synchronization with the delayer: a message of the same
    // direction, or a collective with it, whichever this rank saw last.
    const bool late_sender = wait.kind == WaitKind::kLateSender;
    const auto [message_event, own_op] =
        (late_sender ? sync.received_from : sync.sent_to).last(wait.delayer, wait.call);
    const CollectiveSync collective = collectives.last_sync_with(wait.delayer, wait.call);
    SyncKind kind = SyncKind::kNone;
    uint32_t from = kNone;
    int64_t sync_a = 0, sync_b = 0;
    if (message_event != kNone && (collective.leave == kNone || message_event > collective.leave)) {
      const int64_t their_op = partner_op_of(wait, own_op);
      if (their_op != kNoValue) {
        kind = SyncKind::kMessage;
        from = message_event;
        sync_a = their_op;
      }
    }
    if (kind == SyncKind::kNone && collective.leave != kNone) {
      kind = SyncKind::kCollective;
      from = collective.leave;
      sync_a = collective.comm;
      sync_b = collective.ordinal;
    }
    profiler.profile(from, wait.call, profile);
    const auto n = static_cast<int64_t>(profile.time.size());
    out.values.insert(out.values.end(), {static_cast<int64_t>(wait.kind) |
                                             (static_cast<int64_t>(kind) << 8) | (n << 16),
                                         partner_op, sync_a, sync_b, wait.waiting, profile.waiting});
    for (const auto& [callpath, ticks] : profile.time) {
      out.values.push_back(static_cast<int64_t>(keys.key(callpath)));
      out.values.push_back(ticks);
    }
  };
  for (std::size_t b = 0, r = 0; b < out.peers.size(); ++b) {
    const std::size_t first_value = out.values.size();
    for (const std::size_t end = r + out.records[b]; r < end; ++r) append_record(waits[record_wait[r]]);
    out.sizes[b] = out.values.size() - first_value;
  }
  return out;
}

/// The delayers' side: the delay in each incoming record's interval, found
/// once; `delay_of_record` per incoming record (kNone: no delay here).
void find_delays(const LocalTrace& trace, const Definitions& definitions,
                 const std::vector<int64_t>& in, const BlockLayout& blocks, Synchronizations& sync,
                 const CollectiveDelays& collectives, IntervalProfiler& profiler,
                 const CallpathKeys& keys, std::size_t callpaths, DelayPool& pool,
                 std::vector<uint32_t>& delay_of_record) {
  TicksByCallpath theirs(callpaths);
  IntervalProfile mine;
  for (std::size_t b = 0; b < blocks.peers.size(); ++b) {
    const uint32_t source = blocks.peers[b];
    const int64_t* values = in.data() + blocks.displs[b];
    const std::size_t size = blocks.counts[b];
    for (std::size_t at = 0; at + kHeader <= size;) {
      const int64_t head = values[at];
      const auto kind = static_cast<WaitKind>(head & 0xff);
      const auto sync_kind = static_cast<SyncKind>((head >> 8) & 0xff);
      const std::size_t n = entries_of(head);
      const auto op = static_cast<uint32_t>(values[at + 1]);
      const int64_t sync_a = values[at + 2];
      const int64_t sync_b = values[at + 3];
      const int64_t waited = values[at + 4];
      const int64_t their_waiting = values[at + 5];
      at += kHeader;
      for (std::size_t e = 0; e < n && at + 1 < size; ++e, at += 2) {
        const uint32_t callpath = keys.find(static_cast<uint64_t>(values[at]));
        if (callpath != kNone) theirs.set(callpath, values[at + 1]);
      }
      const bool late_sender = kind == WaitKind::kLateSender;
      const MessageTable& table = late_sender ? trace.sends : trace.recvs;
      if (op >= table.size()) {
        delay_of_record.push_back(kNone);
        theirs.clear();
        continue;
      }
      const uint32_t to = posting_call(table[op]);
      // Start where the waiter started: the same message or collective.
      uint32_t from = kNone;
      if (sync_kind == SyncKind::kMessage) {
        const auto index = static_cast<std::size_t>(sync_a);
        if (index < table.size()) from = posting_call(table[index]);
      } else if (sync_kind == SyncKind::kCollective) {
        from = collectives.leave_of(static_cast<uint32_t>(sync_a), static_cast<std::size_t>(sync_b));
      }
      if (from != kNone && from >= to) {
        // Not before this side's end (messages overtaking on other tags):
        // this side's own last synchronization of that direction.
        if (!sync.posted_built) {
          WorldRanks world_rank(definitions, trace.rank);
          add_postings(trace.sends, world_rank, sync.posted_sends);
          add_postings(trace.recvs, world_rank, sync.posted_recvs);
          sync.posted_built = true;
        }
        from = (late_sender ? sync.posted_sends : sync.posted_recvs).last(source, to).first;
      }
      profiler.profile(from, to, mine);
      delay_of_record.push_back(
          pool.compare(kind, static_cast<double>(waited), mine, theirs, their_waiting));
      theirs.clear();
    }
  }
}

}  // namespace

namespace delay {

uint32_t DelayPool::compare(WaitKind kind, double waiting, const IntervalProfile& mine,
                            const TicksByCallpath& theirs, int64_t their_waiting) {
  Delay delay;
  delay.kind = kind;
  delay.waiting = waiting;
  delay.excess_begin = static_cast<uint32_t>(excess.size());
  for (const auto& [callpath, ticks] : mine.time) {
    const int64_t other = theirs.get(callpath);
    if (ticks > other) {
      excess.emplace_back(callpath, static_cast<double>(ticks - other));
      delay.total += static_cast<double>(ticks - other);
    }
  }
  delay.excess_end = static_cast<uint32_t>(excess.size());
  if (mine.waiting > their_waiting) {
    delay.excess_waiting = static_cast<double>(mine.waiting - their_waiting);
    delay.total += delay.excess_waiting;
  }
  delay.waits_begin = static_cast<uint32_t>(waits.size());
  waits.insert(waits.end(), mine.waits.begin(), mine.waits.end());
  for (const auto& wait : mine.waits) delay.waits_total += wait.second;
  delay.waits_end = static_cast<uint32_t>(waits.size());
  delays.push_back(delay);
  return static_cast<uint32_t>(delays.size() - 1);
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
  std::vector<int64_t>().swap(post_enters);
  std::vector<int64_t> indices(trace.sends.size());
  std::iota(indices.begin(), indices.end(), int64_t{0});
  const std::vector<int64_t> send_index_of_recv = matching.to_receivers(indices, world);
  indices.resize(trace.recvs.size());
  std::iota(indices.begin(), indices.end(), int64_t{0});
  const std::vector<int64_t> recv_index_of_send = matching.to_senders(indices, world);

  // Synchronization points of a Late Sender pair (the sender D, the
  // receiver W) are their previous messages from D to W: at D the send's
  // posting call (Enter), at W the completing call's Leave, the two events
  // the message aligns. For Late Receiver (W sends, D receives) likewise the
  // previous messages from W to D: at W the Leave of the send's completing
  // call, at D the posting call of the receive.
  Synchronizations sync;
  {
    WorldRanks world_rank(definitions, trace.rank);
    add_completions(trace, trace.recvs, world_rank, sync.received_from);
    add_completions(trace, trace.sends, world_rank, sync.sent_to);
  }

  std::vector<std::pair<uint32_t, uint32_t>> wait_calls;
  std::vector<int64_t> waiting;
  wait_calls.reserve(waits.size());
  waiting.reserve(waits.size());
  for (uint32_t k = 0; k < waits.size(); ++k) {
    wait_calls.emplace_back(waits[k].call, k);
    waiting.push_back(waits[k].waiting);
  }
  if (!std::is_sorted(wait_calls.begin(), wait_calls.end())) {
    std::sort(wait_calls.begin(), wait_calls.end());
  }
  IntervalProfiler profiler(trace, tree, std::move(wait_calls), std::move(waiting));
  const CallpathKeys keys(tree);

  std::vector<uint32_t> record_wait;  // per outgoing record
  RecordChannel channel;
  std::vector<uint32_t> delay_of_record;  // per incoming record
  DelayPool pool;
  {
    const OutgoingRecords out = build_records(waits, point_to_point, send_index_of_recv,
                                              recv_index_of_send, sync, collectives, profiler,
                                              keys, record_wait);
    const std::vector<int64_t> in =
        channel.open(out, world,
                     [](const int64_t* values, std::size_t size) {
                       std::size_t records = 0;
                       for (std::size_t at = 0; at + kHeader <= size; ++records) {
                         at += kHeader + 2 * entries_of(values[at]);
                       }
                       return records;
                     });
    collectives.compare_intervals(profiler, keys);
    find_delays(trace, definitions, in, channel.incoming(), sync, collectives, profiler, keys,
                tree.size(), pool, delay_of_record);
  }
  std::vector<Delay>& delays = pool.delays;

  // Rounds: each wait state's long-term waiting travels to its delayer,
  // which passes the share its own waiting explains on to its wait states.
  // Only the delays that pass waiting on need it during the rounds (the
  // others' values matter for their long-term costs: one full carry after
  // the last round, of the values the last round carried).
  std::vector<uint8_t> passes(delay_of_record.size(), 0);
  std::vector<uint32_t> passing;  // delays that pass waiting on, in order
  for (std::size_t r = 0; r < delay_of_record.size(); ++r) {
    const uint32_t d = delay_of_record[r];
    if (d != kNone && delays[d].total > 0 && delays[d].excess_waiting > 0 && delays[d].waits_total > 0) {
      passes[r] = 1;
    }
  }
  for (uint32_t d = 0; d < delays.size(); ++d) {
    if (delays[d].total > 0 && delays[d].excess_waiting > 0 && delays[d].waits_total > 0) {
      passing.push_back(d);
    }
  }
  RecordSubset passing_records(channel, passes);
  std::vector<uint8_t>().swap(passes);
  std::vector<double> per_record(record_wait.size());
  const auto carry_to_delayers = [&] {
    for (std::size_t r = 0; r < record_wait.size(); ++r) per_record[r] = waits[record_wait[r]].propagated;
    const std::vector<double>& arrived = passing_records.to_delayers(per_record);
    const std::vector<uint32_t>& kept = passing_records.kept_in();
    for (std::size_t k = 0; k < kept.size(); ++k) delays[delay_of_record[kept[k]]].propagated = arrived[k];
  };
  std::vector<double> next(waits.size());
  for (int round = 0;; ++round) {
    carry_to_delayers();
    std::fill(next.begin(), next.end(), 0.0);
    for (const uint32_t d : passing) {
      const Delay& delay = delays[d];
      const double passed = (delay.waiting + delay.propagated) * delay.excess_waiting / delay.total;
      pool.share_over_waits(delay, passed, [&](uint32_t wait, double value) { next[wait] += value; });
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
  {
    const std::vector<double> arrived = channel.to_delayers(per_record);
    for (std::size_t r = 0; r < arrived.size() && r < delay_of_record.size(); ++r) {
      if (delay_of_record[r] != kNone) delays[delay_of_record[r]].propagated = arrived[r];
    }
  }

  // Costs at this rank's delaying call paths; what its waiting passed on.
  for (const Delay& delay : delays) {
    if (delay.total <= 0) {
      statistics.unexplained += delay.waiting;
      continue;
    }
    for (uint32_t e = delay.excess_begin; e < delay.excess_end; ++e) {
      const double share = pool.excess[e].second / delay.total;
      bus.publish(DelayCostFound{delay.kind, pool.excess[e].first, delay.waiting * share,
                                 delay.propagated * share});
    }
    pool.share_over_waits(delay, delay.waiting * delay.excess_waiting / delay.total,
                          [&](uint32_t wait, double value) { waits[wait].passed_on += value; });
  }
  std::vector<double> passed_on(waits.size(), 0.0);
  collectives.propagate(waits, next, &passed_on);
  for (std::size_t k = 0; k < waits.size(); ++k) waits[k].passed_on += passed_on[k];
  collectives.publish_costs(waits, bus, statistics);
  // Which part of each wait the partner passed on: back to the waiters
  // (negative: no delay found there).
  std::vector<double> fractions(delay_of_record.size(), -1.0);
  for (std::size_t r = 0; r < delay_of_record.size(); ++r) {
    const uint32_t d = delay_of_record[r];
    if (d != kNone && delays[d].total > 0) fractions[r] = delays[d].excess_waiting / delays[d].total;
  }
  const std::vector<double> back = channel.to_waiters(fractions);
  for (std::size_t r = 0; r < back.size() && r < record_wait.size(); ++r) {
    if (back[r] >= 0) waits[record_wait[r]].indirect_fraction = back[r];
  }
  for (std::size_t k = 0; k < point_to_point; ++k) {
    const WaitState& wait = waits[k];
    const auto w = static_cast<double>(wait.waiting);
    bus.publish(WaitStateClassified{wait.kind, events[wait.call].ref(), w,
                                    w * wait.indirect_fraction, std::min(w, wait.passed_on)});
  }
  return statistics;
}

}  // namespace orrery::analyzer

// The point-to-point records of the delay analysis (delay_records.h): the
// waiter's side writes one record per wait state, the delayer's side finds
// the delay in each record's interval.

#include "delay_records.h"

#include "interval_walk.h"

#include <algorithm>
#include <unordered_map>

namespace orrery::analyzer::delay {
namespace {

/// How the waiter's interval started, so that the delayer starts its own at
/// the same synchronization: a message (by the delayer's operation index),
/// a collective instance (communicator, ordinal), or none.
enum class SyncKind : int64_t { kNone = 0, kMessage = 1, kCollective = 2 };

/// A record: header, then n x (call path key, ticks).
///   [0] kind | sync kind << 8 | n << 16   [1] the delayer's operation (its route number)
///   [2] sync a (a message's route number, or communicator)  [3] sync b (ordinal)
///   [4] the waiting   [5] the waiter's own waiting in the interval
constexpr std::size_t kHeader = 6;

std::size_t entries_of(int64_t head) { return static_cast<std::size_t>(head >> 16); }

void add_postings(const MessageTable& table, WorldRanks& world_rank, SyncPoints& points) {
  for (uint32_t j = 0; j < table.size(); ++j) {
    const MessageOp& op = table[j];
    if (op.cancelled || op.complete_call == kNone) continue;
    const uint32_t peer = world_rank(op.comm, op.peer);
    if (peer != kNone) points.add(peer, posting_call(op), j);
  }
  points.finish();
}

}  // namespace


Synchronizations::Synchronizations(const LocalTrace& trace, const Definitions& definitions)
    : trace_(trace), definitions_(definitions) {}

SyncPoints& Synchronizations::posted(bool sends) {
  if (!posted_built_) {
    WorldRanks world_rank(definitions_, trace_.rank);
    add_postings(trace_.sends, world_rank, posted_sends_);
    add_postings(trace_.recvs, world_rank, posted_recvs_);
    posted_built_ = true;
  }
  return sends ? posted_sends_ : posted_recvs_;
}

RecordPlan plan_records(const std::vector<WaitState>& waits, std::size_t point_to_point,
                        const MessageMatching& matching) {
  const auto has_record = [&](const WaitState& wait) {
    if (wait.delayer == kNone) return false;
    return wait.kind == WaitKind::kLateSender ? matching.recv_matched(wait.op)
                                              : matching.send_matched(wait.op);
  };
  // The destinations, ascending (few: the partners of this rank), and the
  // wait states in destination order (a counting sort: stable).
  std::unordered_map<uint32_t, uint32_t> block_of;
  uint32_t last_peer = kNone;  // wait states come in runs of one delayer
  for (std::size_t k = 0; k < point_to_point; ++k) {
    if (waits[k].delayer == last_peer || !has_record(waits[k])) continue;
    last_peer = waits[k].delayer;
    block_of.emplace(last_peer, 0);
  }
  RecordPlan plan;
  for (const auto& entry : block_of) plan.peers.push_back(entry.first);
  std::sort(plan.peers.begin(), plan.peers.end());
  for (uint32_t b = 0; b < plan.peers.size(); ++b) block_of[plan.peers[b]] = b;
  plan.records.assign(plan.peers.size(), 0);
  std::vector<uint32_t> block_of_wait(point_to_point, kNone);
  uint32_t last_block = 0;
  last_peer = kNone;
  for (std::size_t k = 0; k < point_to_point; ++k) {
    if (!has_record(waits[k])) continue;
    if (waits[k].delayer != last_peer) {
      last_peer = waits[k].delayer;
      last_block = block_of[last_peer];
    }
    block_of_wait[k] = last_block;
    ++plan.records[last_block];
  }
  std::vector<std::size_t> next_slot(plan.peers.size() + 1, 0);
  for (std::size_t b = 0; b < plan.peers.size(); ++b) {
    next_slot[b + 1] = next_slot[b] + plan.records[b];
  }
  plan.record_wait.assign(next_slot.back(), 0);
  for (std::size_t k = 0; k < point_to_point; ++k) {
    if (block_of_wait[k] != kNone) {
      plan.record_wait[next_slot[block_of_wait[k]]++] = static_cast<uint32_t>(k);
    }
  }
  return plan;
}

namespace {

/// The last route number the waiter looked up: a wait state's interval
/// usually starts at the message of the wait state before it (same
/// direction, same partner), whose number was just looked up.
struct LastRoute {
  bool late_sender = false;
  uint32_t op = kNone;
  int64_t number = kNoValue;
};

/// The waiter's side: appends the record of wait state `k` to `values`.
void write_record(const std::vector<WaitState>& waits, uint32_t k, RecordContext& context,
                  LastRoute& last, std::vector<int64_t>& values) {
  const WaitState& wait = waits[k];
  // The message's number between the two (the delayer finds its own
  // operation by it); kNoValue if it has no partner.
  const bool late_sender = wait.kind == WaitKind::kLateSender;
  const auto partner_op_of = [&](uint32_t op) {
    if (op == last.op && late_sender == last.late_sender) return last.number;
    const MessageMatching::Route route =
        late_sender ? context.routes.recv_route(op) : context.routes.send_route(op);
    const int64_t number = route.peer == kNone ? kNoValue : static_cast<int64_t>(route.number);
    last = LastRoute{late_sender, op, number};
    return last.number;
  };
  // The previous synchronization with the delayer: a message of the same
  // direction, or a collective with it, whichever this rank saw last.
  const auto [message_event, own_op] = context.message_syncs[k];
  const int64_t their_op = message_event == kNone ? kNoValue : partner_op_of(own_op);
  const int64_t wait_op = partner_op_of(wait.op);
  // A collective with the delayer can only be later than the message if
  // some collective call ended between the two (usually none did).
  const CollectiveSync collective =
      their_op != kNoValue && !context.collectives.any_sync_between(message_event, wait.call)
          ? CollectiveSync{}
          : context.collectives.last_sync_with(wait.delayer, wait.call);
  SyncKind kind = SyncKind::kNone;
  uint32_t from = kNone;
  int64_t sync_a = 0, sync_b = 0;
  if (message_event != kNone && (collective.leave == kNone || message_event > collective.leave)) {
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
  // The header, then the profile straight into the buffer (the delayer
  // needs no list of waits); its length and waiting go into the header.
  const std::size_t head = values.size();
  values.insert(values.end(), {static_cast<int64_t>(wait.kind) | (static_cast<int64_t>(kind) << 8),
                               wait_op, sync_a, sync_b, wait.waiting, 0});
  struct {
    const CallpathKeys& keys;
    std::vector<int64_t>& values;
    int64_t entries = 0;
    void wait(uint32_t, int64_t) {}
    void time(uint32_t callpath, int64_t ticks) {
      values.push_back(static_cast<int64_t>(keys.key(callpath)));
      values.push_back(ticks);
      ++entries;
    }
  } out{context.keys, values};
  values[head + 5] = context.profiler.profile_into(from, wait.call, false, out);
  values[head] |= out.entries << 16;
}

/// The delayer's side: the delays in a block of records from `source`, the
/// first of them incoming record `first_record`.
class DelayFinder {
 public:
  DelayFinder(RecordContext& context, std::size_t callpaths, DelayPool& pool,
              std::vector<uint32_t>& delay_of_record)
      : context_(context), theirs_(callpaths), pool_(pool), delay_of_record_(delay_of_record) {}

  void read_block(uint32_t source, const int64_t* values, std::size_t size,
                  std::size_t first_record) {
    const LocalTrace& trace = context_.trace;
    for (std::size_t at = 0, record = first_record; at + kHeader <= size; ++record) {
      const int64_t head = values[at];
      const auto kind = static_cast<WaitKind>(head & 0xff);
      const auto sync_kind = static_cast<SyncKind>((head >> 8) & 0xff);
      const std::size_t n = entries_of(head);
      const bool late_sender = kind == WaitKind::kLateSender;
      // This side's operation of a message the waiter names by its route number.
      const auto own_op = [&](int64_t number) {
        const auto n32 = static_cast<uint32_t>(number);
        return late_sender ? context_.routes.send_at(source, n32)
                           : context_.routes.recv_at(source, n32);
      };
      const uint32_t op = own_op(values[at + 1]);
      const int64_t sync_a = values[at + 2];
      const int64_t sync_b = values[at + 3];
      const int64_t waited = values[at + 4];
      const int64_t their_waiting = values[at + 5];
      at += kHeader;
      for (std::size_t e = 0; e < n && at + 1 < size; ++e, at += 2) {
        const uint32_t callpath = context_.keys.find(static_cast<uint64_t>(values[at]));
        if (callpath != kNone) theirs_.set(callpath, values[at + 1]);
      }
      const MessageTable& table = late_sender ? trace.sends : trace.recvs;
      if (op < table.size()) {
        const uint32_t to = posting_call(table[op]);
        // Start where the waiter started: the same message or collective.
        uint32_t from = kNone;
        if (sync_kind == SyncKind::kMessage) {
          const uint32_t index = own_op(sync_a);
          if (index < table.size()) from = posting_call(table[index]);
        } else if (sync_kind == SyncKind::kCollective) {
          from = context_.collectives.leave_of(static_cast<uint32_t>(sync_a),
                                               static_cast<std::size_t>(sync_b));
        }
        if (from != kNone && from >= to) {
          // Not before this side's end (messages overtaking on other tags):
          // this side's own last synchronization of that direction.
          from = context_.sync.posted(late_sender).last(source, to).first;
        }
        // Compared as the profile comes (DelayPool::start_delay and on).
        own_waits_.clear();
        struct {
          DelayPool& pool;
          const TicksByCallpath& theirs;
          std::vector<std::pair<uint32_t, int64_t>>& own_waits;
          void wait(uint32_t wait, int64_t ticks) { own_waits.emplace_back(wait, ticks); }
          void time(uint32_t callpath, int64_t ticks) { pool.add_time(callpath, ticks, theirs); }
        } out{pool_, theirs_, own_waits_};
        pool_.start_delay(kind, waited);
        const int64_t waiting = context_.profiler.profile_into(from, to, true, out);
        delay_of_record_[record] = pool_.finish_delay(waiting, their_waiting, own_waits_);
      }
      theirs_.clear();
    }
  }

 private:
  RecordContext& context_;
  TicksByCallpath theirs_;
  std::vector<std::pair<uint32_t, int64_t>> own_waits_;  ///< this side's, in the interval
  DelayPool& pool_;
  std::vector<uint32_t>& delay_of_record_;
};

}  // namespace

void exchange_records(const std::vector<WaitState>& waits, const RecordPlan& plan,
                      const RecordChannel& channel, RecordContext& context, DelayPool& pool,
                      std::vector<uint32_t>& delay_of_record) {
  const BlockLayout& out = channel.outgoing_records();
  const BlockLayout& incoming = channel.incoming_records();
  delay_of_record.assign(incoming.total, kNone);
  pool.delays.reserve(incoming.total);  // one per record at most
  DelayFinder finder(context, context.keys.size(), pool, delay_of_record);
  LastRoute last_route;
  std::vector<int64_t> values;
  std::vector<std::size_t> sizes;
  std::vector<int64_t> received;
  BlockLayout in;
  for (std::size_t batch = 0; batch < channel.batches(); ++batch) {
    values.clear();
    sizes.clear();
    for (std::size_t k = 0; k < out.peers.size(); ++k) {
      const auto [first, last] = RecordChannel::slice(out.counts[k], batch);
      if (first == last) continue;
      const std::size_t start = values.size();
      for (std::size_t r = first; r < last; ++r) {
        write_record(waits, plan.record_wait[out.displs[k] + r], context, last_route, values);
      }
      sizes.push_back(values.size() - start);
    }
    channel.exchange_batch(batch, values, sizes, in, received);
    // The batch's blocks come from the sources with records in it, ascending.
    for (std::size_t b = 0, k = 0; b < in.peers.size(); ++b) {
      while (incoming.peers[k] != in.peers[b]) ++k;
      finder.read_block(in.peers[b], received.data() + in.displs[b], in.counts[b],
                        incoming.displs[k] + RecordChannel::slice(incoming.counts[k], batch).first);
    }
  }
}

uint32_t DelayPool::finish_delay(int64_t mine_waiting, int64_t their_waiting,
                                 std::span<const std::pair<uint32_t, int64_t>> own_waits) {
  Delay& delay = pending_;
  if (mine_waiting > their_waiting) {
    delay.excess_waiting = static_cast<double>(mine_waiting - their_waiting);
    delay.total += delay.excess_waiting;
  }
  delay.waits_begin = static_cast<uint32_t>(waits.size());
  for (const auto& wait : own_waits) delay.waits_total += wait.second;
  // The own wait states only receive shares of the delay that was own
  // waiting (share_over_waits): without such a share they are not kept.
  if (delay.total > 0 && delay.excess_waiting > 0) {
    for (const auto& [wait, ticks] : own_waits) waits.push_back(OwnWait{wait, ticks});
  }
  delays.push_back(delay);
  return static_cast<uint32_t>(delays.size() - 1);
}

}  // namespace orrery::analyzer::delay

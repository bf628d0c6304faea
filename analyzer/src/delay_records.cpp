// The point-to-point records of the delay analysis (delay_records.h): the
// waiter's side writes one record per wait state, the delayer's side finds
// the delay in each record's interval.

#include "delay_records.h"

#include "delay_record_format.h"
#include "interval_walk.h"

#include <algorithm>
#include <unordered_map>

namespace orrery::analyzer::delay {
namespace {

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

/// The waiter's side: writes the records of its wait states.
class RecordWriter {
 public:
  explicit RecordWriter(RecordContext& context) : context_(context) {}

  /// Appends the record of wait state `k` to `words`; with `indexed`, the
  /// delayer's call paths are this rank's (the same call tree: by index).
  void write(const std::vector<WaitState>& waits, uint32_t k, bool indexed,
             std::vector<uint32_t>& words) {
    const WaitState& wait = waits[k];
    // The message's number between the two (the delayer finds its own
    // operation by it); kNoValue if it has no partner.
    const bool late_sender = wait.kind == WaitKind::kLateSender;
    const auto partner_op_of = [&](uint32_t op) {
      if (op == last_.op && late_sender == last_.late_sender) return last_.number;
      const MessageMatching::Route route =
          late_sender ? context_.routes.recv_route(op) : context_.routes.send_route(op);
      const int64_t number = route.peer == kNone ? kNoValue : static_cast<int64_t>(route.number);
      last_ = LastRoute{late_sender, op, number};
      return last_.number;
    };
    // The previous synchronization with the delayer: a message of the same
    // direction, or a collective with it, whichever this rank saw last.
    const auto [message_event, own_op] = context_.message_syncs[k];
    const int64_t their_op = message_event == kNone ? kNoValue : partner_op_of(own_op);
    // (A route number travels as its low 32 bits: kNoValue as 0, as the
    // delayer's lookup always took it; a record's own operation has one.)
    RecordHead head;
    head.kind = wait.kind;
    head.op = static_cast<uint32_t>(partner_op_of(wait.op));
    head.waiting = wait.waiting;
    head.keys = !indexed;
    // A collective with the delayer can only be later than the message if
    // some collective call ended between the two (usually none did).
    const CollectiveSync collective =
        their_op != kNoValue && !context_.collectives.any_sync_between(message_event, wait.call)
            ? CollectiveSync{}
            : context_.collectives.last_sync_with(wait.delayer, wait.call);
    uint32_t from = kNone;
    if (message_event != kNone && (collective.leave == kNone || message_event > collective.leave)) {
      if (their_op != kNoValue) {
        head.sync = SyncKind::kMessage;
        from = message_event;
        head.sync_a = static_cast<uint32_t>(their_op);
      }
    }
    if (head.sync == SyncKind::kNone && collective.leave != kNone) {
      head.sync = SyncKind::kCollective;
      from = collective.leave;
      head.sync_a = collective.comm;
      head.sync_b = collective.ordinal;
    }
    // The profile (the delayer needs no list of waits), then the record.
    entries_.clear();
    struct {
      std::vector<std::pair<uint32_t, int64_t>>& entries;
      void wait(uint32_t, int64_t) {}
      void time(uint32_t callpath, int64_t ticks) { entries.emplace_back(callpath, ticks); }
    } out{entries_};
    head.own_waiting = context_.profiler.profile_into(from, wait.call, false, out);
    const CallpathKeys& keys = context_.keys;
    append_record(head, entries_, [&keys](uint32_t callpath) { return keys.key(callpath); },
                  words);
  }

 private:
  RecordContext& context_;
  LastRoute last_;
  std::vector<std::pair<uint32_t, int64_t>> entries_;  ///< one profile, reused
};

/// The delayer's side: the delays in a block of records from `source`, the
/// first of them incoming record `first_record`.
class DelayFinder {
 public:
  DelayFinder(RecordContext& context, std::size_t callpaths, DelayPool& pool,
              std::vector<uint32_t>& delay_of_record)
      : context_(context), theirs_(callpaths), pool_(pool), delay_of_record_(delay_of_record) {}

  void read_block(uint32_t source, const uint32_t* words, std::size_t size,
                  std::size_t first_record) {
    const LocalTrace& trace = context_.trace;
    const CallpathKeys& keys = context_.keys;
    const std::size_t callpaths = keys.size();
    RecordHead head;
    const uint32_t* const end = words + size;
    for (std::size_t record = first_record; words < end; ++record) {
      // The waiter's profile by this rank's call paths (an unknown one is
      // not compared).
      words = read_record(words, end, head, [&](uint64_t callpath, int64_t ticks) {
        const uint32_t own = head.keys ? keys.find(callpath)
                             : callpath < callpaths ? static_cast<uint32_t>(callpath)
                                                    : kNone;
        if (own != kNone) theirs_.set(own, ticks);
      });
      if (words == nullptr) break;
      const bool late_sender = head.kind == WaitKind::kLateSender;
      // This side's operation of a message the waiter names by its route number.
      const auto own_op = [&](uint32_t number) {
        return late_sender ? context_.routes.send_at(source, number)
                           : context_.routes.recv_at(source, number);
      };
      const uint32_t op = own_op(head.op);
      const MessageTable& table = late_sender ? trace.sends : trace.recvs;
      if (op < table.size()) {
        const uint32_t to = posting_call(table[op]);
        // Start where the waiter started: the same message or collective.
        uint32_t from = kNone;
        if (head.sync == SyncKind::kMessage) {
          const uint32_t index = own_op(head.sync_a);
          if (index < table.size()) from = posting_call(table[index]);
        } else if (head.sync == SyncKind::kCollective) {
          from = context_.collectives.leave_of(head.sync_a, head.sync_b);
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
        pool_.start_delay(head.kind, head.waiting);
        const int64_t waiting = context_.profiler.profile_into(from, to, true, out);
        delay_of_record_[record] = pool_.finish_delay(waiting, head.own_waiting, own_waits_);
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

namespace {

/// Per destination of `channel` (ascending), whether its call paths are
/// this rank's, index for index (the same call tree, as SPMD ranks mostly
/// have: a fingerprint of all keys, one word to each partner): then the
/// records name call paths by index, not by 64-bit key.
std::vector<uint8_t> same_call_trees(const RecordChannel& channel, const CallpathKeys& keys) {
  uint64_t fingerprint = keys.size();
  for (uint32_t c = 0; c < keys.size(); ++c) {
    fingerprint = (fingerprint ^ keys.key(c)) * 0x100000001b3ULL;
    fingerprint ^= fingerprint >> 29;
  }
  BlockLayout to_sources, from_destinations;
  for (const uint32_t peer : channel.incoming_records().peers) to_sources.add(peer, 1);
  for (const uint32_t peer : channel.outgoing_records().peers) from_destinations.add(peer, 1);
  std::vector<uint64_t> mine(to_sources.total, fingerprint), theirs(from_destinations.total);
  exchange_blocks(mine.data(), to_sources, theirs.data(), from_destinations, MPI_UINT64_T,
                  channel.world());
  std::vector<uint8_t> same(theirs.size());
  for (std::size_t k = 0; k < theirs.size(); ++k) same[k] = theirs[k] == fingerprint ? 1 : 0;
  return same;
}

}  // namespace

void exchange_records(const std::vector<WaitState>& waits, const RecordPlan& plan,
                      const RecordChannel& channel, RecordContext& context, DelayPool& pool,
                      std::vector<uint32_t>& delay_of_record) {
  const BlockLayout& out = channel.outgoing_records();
  const BlockLayout& incoming = channel.incoming_records();
  delay_of_record.assign(incoming.total, kNone);
  pool.delays.reserve(incoming.total);  // one per record at most
  const std::vector<uint8_t> indexed = same_call_trees(channel, context.keys);
  RecordWriter writer(context);
  DelayFinder finder(context, context.keys.size(), pool, delay_of_record);
  std::vector<uint32_t> words;
  std::vector<std::size_t> sizes;
  std::vector<uint32_t> received;
  BlockLayout in;
  for (std::size_t batch = 0; batch < channel.batches(); ++batch) {
    words.clear();
    sizes.clear();
    for (std::size_t k = 0; k < out.peers.size(); ++k) {
      const auto [first, last] = RecordChannel::slice(out.counts[k], batch);
      if (first == last) continue;
      const std::size_t start = words.size();
      for (std::size_t r = first; r < last; ++r) {
        writer.write(waits, plan.record_wait[out.displs[k] + r], indexed[k] != 0, words);
      }
      sizes.push_back(words.size() - start);
    }
    channel.exchange_batch(batch, words, sizes, in, received);
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

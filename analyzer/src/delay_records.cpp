// The point-to-point records of the delay analysis (delay_records.h): the
// waiter's side writes one record per wait state, the delayer's side finds
// the delay in each record's interval.

#include "delay_records.h"

#include "delay_record_format.h"
#include "interval_walk.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
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

/// Reads the call path table at `at` (append_callpath_table) into `index`:
/// per call path of the source, this rank's with the same key (kNone if
/// none). Returns where the records start.
const uint32_t* read_callpath_table(const uint32_t* at, const uint32_t* end,
                                    const CallpathKeys& keys, std::vector<uint32_t>& index) {
  index.clear();
  if (at == end) return at;
  const std::size_t count = *at++;
  if (static_cast<std::size_t>(end - at) < 2 * count) return end;  // cut short: no records
  index.resize(count);
  for (std::size_t c = 0; c < count; ++c, at += 2) index[c] = keys.find(record_words::get_wide(at));
  return at;
}

/// The waiter's side: writes the records of its wait states.
class WaiterSide {
 public:
  explicit WaiterSide(RecordContext& context) : context_(context) {}

  /// Appends the record of wait state `k` to `words`; with `indexed`, its
  /// call paths go by this rank's index (the delayer has its table).
  void write(const std::vector<WaitState>& waits, uint32_t k, bool indexed,
             RecordWriter& words) {
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
    // The record as the profile comes (the delayer needs no list of waits).
    words.begin(head);
    struct {
      RecordWriter& words;
      const CallpathKeys& keys;
      bool by_key;
      void wait(uint32_t, int64_t) {}
      void time(uint32_t callpath, int64_t ticks) {
        words.entry(callpath, by_key ? keys.key(callpath) : 0, ticks);
      }
    } out{words, context_.keys, head.keys};
    words.end(context_.profiler.profile_into(from, wait.call, false, out));
  }

 private:
  RecordContext& context_;
  LastRoute last_;
};

/// The delayer's side: the delays in a block of records from `source`, the
/// first of them incoming record `first_record`.
class DelayFinder {
 public:
  DelayFinder(RecordContext& context, std::size_t callpaths, DelayPool& pool,
              DelayOfRecord& delay_of_record)
      : context_(context), theirs_(callpaths), pool_(pool), delay_of_record_(delay_of_record) {}

  /// Reads a block of records from `source`, the first of them incoming
  /// record `first_record`; `own_callpath` is this source's call path table (read
  /// from the block's start if it is the source's first: `first_block`).
  void read_block(uint32_t source, const uint32_t* words, std::size_t size,
                  std::size_t first_record, bool first_block, std::vector<uint32_t>& own_callpath) {
    const LocalTrace& trace = context_.trace;
    const CallpathKeys& keys = context_.keys;
    RecordHead head;
    const uint32_t* const end = words + size;
    if (first_block) words = read_callpath_table(words, end, keys, own_callpath);
    const std::size_t known = own_callpath.size();
    for (std::size_t record = first_record; words < end; ++record) {
      // The waiter's profile by this rank's call paths (an unknown one is
      // not compared).
      words = read_record(words, end, head, [&](uint64_t callpath, int64_t ticks) {
        const uint32_t own = head.keys ? keys.find(callpath)
                             : callpath < known ? own_callpath[callpath] : kNone;
        if (own != kNone) theirs_.set(own, ticks);
      });
      if (words == nullptr) {  // cut short (never, between ranks of one build)
        theirs_.clear();
        break;
      }
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
        delay_of_record_.set(record, pool_.finish_delay(waiting, head.own_waiting, own_waits_));
      }
      theirs_.clear();
    }
  }

 private:
  RecordContext& context_;
  TicksByCallpath theirs_;
  std::vector<std::pair<uint32_t, int64_t>> own_waits_;  ///< this side's, in the interval
  DelayPool& pool_;
  DelayOfRecord& delay_of_record_;
};

}  // namespace

namespace {

/// Asks for transparent huge pages under [data, data + bytes) (a hint, as
/// the event buffers do: where the kernel's THP mode is "madvise" or
/// "always"; elsewhere nothing changes): a table of millions of entries is
/// touched for the first time front to back, and fresh pages cost a fault
/// each (about 2 us per 4 KiB page, zeroing included, in the benchmark's VM).
void advise_huge_pages(const void* data, std::size_t bytes) {
  constexpr std::uintptr_t kHuge = std::uintptr_t{2} << 20;
  const auto begin = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t first = (begin + kHuge - 1) & ~(kHuge - 1);
  const std::uintptr_t last = (begin + bytes) & ~(kHuge - 1);
  if (last > first) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
}

/// Whether the records to a destination name call paths by this rank's
/// index: when they are at least as many as the call paths, the first
/// block to it starts with the table of all keys (index_table), which
/// costs at most a key per record, and every entry's call path is then one word.
bool by_index(std::size_t records, std::size_t callpaths) { return callpaths <= records; }

/// The table a first block starts with: the number of keys (0: the records
/// name call paths by key), then each key in two words.
void append_callpath_table(const CallpathKeys& keys, bool indexed, std::vector<uint32_t>& words) {
  const std::size_t count = indexed ? keys.size() : 0;
  words.push_back(static_cast<uint32_t>(count));
  for (uint32_t c = 0; c < count; ++c) record_words::put_wide(words, keys.key(c));
}

}  // namespace

void exchange_records(const std::vector<WaitState>& waits, const RecordPlan& plan,
                      const RecordChannel& channel, RecordContext& context, DelayPool& pool,
                      DelayOfRecord& delay_of_record) {
  const BlockLayout& out = channel.outgoing_records();
  const BlockLayout& incoming = channel.incoming_records();
  pool.delays.reserve(incoming.total);  // one per record at most
  pool.ranges.reserve(incoming.total);
  advise_huge_pages(pool.delays.data(), incoming.total * sizeof(Delay));
  advise_huge_pages(pool.ranges.data(), incoming.total * sizeof(DelayRanges));
  delay_of_record.open(incoming.total);
  WaiterSide waiter(context);
  DelayFinder finder(context, context.keys.size(), pool, delay_of_record);
  // Two send buffers: a batch is written while the one before it may still
  // be on its way (RecordChannel::send_batch).
  std::vector<uint32_t> words[2];
  std::vector<MPI_Request> sending[2];
  std::vector<std::size_t> sizes;
  std::vector<uint32_t> received;
  BlockLayout in;
  std::vector<std::vector<uint32_t>> own_callpaths(incoming.peers.size());  // per source: its table
  const auto read_batch = [&](std::size_t batch) {
    channel.receive_batch(batch, in, received);
    // The batch's blocks come from the sources with records in it, ascending.
    for (std::size_t b = 0, k = 0; b < in.peers.size(); ++b) {
      while (incoming.peers[k] != in.peers[b]) ++k;
      const std::size_t first = RecordChannel::slice(incoming.counts[k], batch).first;
      finder.read_block(in.peers[b], received.data() + in.displs[b], in.counts[b],
                        incoming.displs[k] + first, first == 0, own_callpaths[k]);
    }
  };
  for (std::size_t batch = 0; batch < channel.batches(); ++batch) {
    std::vector<uint32_t>& out_words = words[batch % 2];
    RecordChannel::wait_sent(sending[batch % 2]);  // the batch before the last one
    out_words.clear();
    sizes.clear();
    RecordWriter writer(out_words, context.keys.size());
    for (std::size_t k = 0; k < out.peers.size(); ++k) {
      const auto [first, last] = RecordChannel::slice(out.counts[k], batch);
      if (first == last) continue;
      const std::size_t start = out_words.size();
      const bool indexed = by_index(out.counts[k], context.keys.size());
      if (first == 0) append_callpath_table(context.keys, indexed, out_words);
      for (std::size_t r = first; r < last; ++r) {
        waiter.write(waits, plan.record_wait[out.displs[k] + r], indexed, writer);
      }
      sizes.push_back(out_words.size() - start);
    }
    channel.send_batch(batch, out_words, sizes, sending[batch % 2]);
    // The second buffer at once as large as the first (no chain of
    // doublings between the pool's growing chunks: less memory at the peak).
    if (batch == 0) words[1].reserve(out_words.capacity());
    if (batch > 0) read_batch(batch - 1);
  }
  if (channel.batches() > 0) read_batch(channel.batches() - 1);
  RecordChannel::wait_sent(sending[0]);
  RecordChannel::wait_sent(sending[1]);
}

uint32_t DelayPool::finish_delay(int64_t mine_waiting, int64_t their_waiting,
                                 std::span<const std::pair<uint32_t, int64_t>> own_waits) {
  constexpr int64_t kLongestWaiting = (int64_t{1} << 55) - 1;  // what Delay::waiting_ticks holds
  Delay delay;
  delay.kind_bits = static_cast<int64_t>(pending_kind_);
  delay.waiting_ticks = std::clamp(pending_waiting_, -kLongestWaiting, kLongestWaiting);
  delay.total = pending_total_;
  if (mine_waiting > their_waiting) {
    delay.excess_waiting = static_cast<double>(mine_waiting - their_waiting);
    delay.total += delay.excess_waiting;
  }
  const auto waits_begin = static_cast<uint32_t>(waits.size());
  int64_t waits_total = 0;
  for (const auto& wait : own_waits) waits_total += wait.second;
  // The own wait states only receive shares of the delay that was own
  // waiting, by their ticks (PassingShares::share): without such a share
  // (or without ticks to share by) they are not kept.
  if (delay.total > 0 && delay.excess_waiting > 0 && waits_total > 0) {
    delay.passes_bit = 1;
    for (const auto& [wait, ticks] : own_waits) waits.push_back(OwnWait{wait, ticks});
  }
  delays.push_back(delay);
  ranges.push_back(DelayRanges{pending_excess_begin_, waits_begin});
  return static_cast<uint32_t>(delays.size() - 1);
}

}  // namespace orrery::analyzer::delay

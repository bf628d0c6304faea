// The point-to-point records of the delay analysis (delay_records.h): the
// waiter's side writes one record per wait state, the delayer's side finds
// the delay in each record's interval.

#include "delay_records.h"

#include <algorithm>
#include <unordered_map>

namespace orrery::analyzer::delay {
namespace {

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

}  // namespace

uint32_t posting_call(const MessageOp& op) {
  return op.post_call == kNone ? op.post_event : op.post_call;
}

Synchronizations::Synchronizations(const LocalTrace& trace, const Definitions& definitions)
    : trace_(trace), definitions_(definitions) {
  WorldRanks world_rank(definitions, trace.rank);
  add_completions(trace, trace.recvs, world_rank, received_from);
  add_completions(trace, trace.sends, world_rank, sent_to);
}

SyncPoints& Synchronizations::posted(bool sends) {
  if (!posted_built_) {
    WorldRanks world_rank(definitions_, trace_.rank);
    add_postings(trace_.sends, world_rank, posted_sends_);
    add_postings(trace_.recvs, world_rank, posted_recvs_);
    posted_built_ = true;
  }
  return sends ? posted_sends_ : posted_recvs_;
}

std::size_t count_records(const int64_t* values, std::size_t size) {
  std::size_t records = 0;
  for (std::size_t at = 0; at + kHeader <= size; ++records)
    at += kHeader + 2 * entries_of(values[at]);
  return records;
}

OutgoingRecords build_records(const std::vector<WaitState>& waits, std::size_t point_to_point,
                              const std::vector<int64_t>& send_index_of_recv,
                              const std::vector<int64_t>& recv_index_of_send,
                              Synchronizations& sync, const CollectiveDelays& collectives,
                              IntervalProfiler& profiler, const CallpathKeys& keys,
                              std::vector<uint32_t>& record_wait) {
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
  for (std::size_t b = 0; b < out.peers.size(); ++b)
    next_slot[b + 1] = next_slot[b] + out.records[b];
  record_wait.assign(next_slot.back(), 0);
  for (std::size_t k = 0; k < point_to_point; ++k) {
    if (block_of_wait[k] != kNone)
      record_wait[next_slot[block_of_wait[k]]++] = static_cast<uint32_t>(k);
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
    out.values.insert(
        out.values.end(),
        {static_cast<int64_t>(wait.kind) | (static_cast<int64_t>(kind) << 8) | (n << 16),
         partner_op, sync_a, sync_b, wait.waiting, profile.waiting});
    for (const auto& [callpath, ticks] : profile.time) {
      out.values.push_back(static_cast<int64_t>(keys.key(callpath)));
      out.values.push_back(ticks);
    }
  };
  for (std::size_t b = 0, r = 0; b < out.peers.size(); ++b) {
    const std::size_t first_value = out.values.size();
    for (const std::size_t end = r + out.records[b]; r < end; ++r)
      append_record(waits[record_wait[r]]);
    out.sizes[b] = out.values.size() - first_value;
  }
  return out;
}

void find_delays(const LocalTrace& trace, const std::vector<int64_t>& in, const BlockLayout& blocks,
                 Synchronizations& sync, const CollectiveDelays& collectives,
                 IntervalProfiler& profiler, const CallpathKeys& keys, std::size_t callpaths,
                 DelayPool& pool, std::vector<uint32_t>& delay_of_record) {
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
        from =
            collectives.leave_of(static_cast<uint32_t>(sync_a), static_cast<std::size_t>(sync_b));
      }
      if (from != kNone && from >= to) {
        // Not before this side's end (messages overtaking on other tags):
        // this side's own last synchronization of that direction.
        from = sync.posted(late_sender).last(source, to).first;
      }
      profiler.profile(from, to, mine);
      delay_of_record.push_back(
          pool.compare(kind, static_cast<double>(waited), mine, theirs, their_waiting));
      theirs.clear();
    }
  }
}

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

}  // namespace orrery::analyzer::delay

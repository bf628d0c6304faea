#pragma once
// Internal to the delay analysis: the point-to-point records
// (delay_records.cpp). Each waiter writes one record per wait state for its
// delayer (kind, the delayer's operation, where the interval started, the
// waiting, and the waiter's interval profile by call path key); the
// delayer compares its own interval with it.

#include <cstdint>
#include <vector>

#include "delay_model.h"
#include "orrery/analyzer/message_exchange.h"

namespace orrery::analyzer::delay {

/// The call that posted a message (its Enter), or the posting event.
uint32_t posting_call(const MessageOp& op);

/// Where both sides start their intervals: the waiter's previous messages
/// with each peer (by Leave of the completing call), and the delayer's
/// fallback, by posting call (built on first use: rarely needed).
class Synchronizations {
 public:
  Synchronizations(const LocalTrace& trace, const Definitions& definitions);
  SyncPoints received_from, sent_to;
  /// The postings of this rank's sends (`sends`) or receives per peer.
  SyncPoints& posted(bool sends);

 private:
  const LocalTrace& trace_;
  const Definitions& definitions_;
  SyncPoints posted_sends_, posted_recvs_;
  bool posted_built_ = false;
};

/// The waiters' side: one record per point-to-point wait state (the first
/// `point_to_point` of `waits`) to its delayer, grouped by destination
/// (ascending), in wait order within each; `record_wait` gets the wait
/// state of each outgoing record in that order. `send_index_of_recv` and
/// `recv_index_of_send`: the partner's operation index per message.
OutgoingRecords build_records(const std::vector<WaitState>& waits, std::size_t point_to_point,
                              const std::vector<int64_t>& send_index_of_recv,
                              const std::vector<int64_t>& recv_index_of_send,
                              Synchronizations& sync, const CollectiveDelays& collectives,
                              IntervalProfiler& profiler, const CallpathKeys& keys,
                              std::vector<uint32_t>& record_wait);

/// The number of records in a block of `size` values.
std::size_t count_records(const int64_t* values, std::size_t size);

/// The delayers' side: the delay in each incoming record's interval (`in`,
/// laid out by `blocks`), found once; `delay_of_record` per incoming record
/// (kNone: no delay here).
void find_delays(const LocalTrace& trace, const std::vector<int64_t>& in, const BlockLayout& blocks,
                 Synchronizations& sync, const CollectiveDelays& collectives,
                 IntervalProfiler& profiler, const CallpathKeys& keys, std::size_t callpaths,
                 DelayPool& pool, std::vector<uint32_t>& delay_of_record);

}  // namespace orrery::analyzer::delay

#pragma once
// Internal to the delay analysis: the point-to-point records
// (delay_records.cpp). Each waiter writes one record per wait state for its
// delayer (kind, the delayer's operation, where the interval started, the
// waiting, and the waiter's interval profile by call path key); the
// delayer compares its own interval with it.

#include <cstdint>
#include <vector>

#include "delay_model.h"
#include "delay_of_record.h"
#include "orrery/analyzer/message_exchange.h"

namespace orrery::analyzer::delay {

/// The delayer's fallback for where its interval starts, by posting call
/// (built on first use: rarely needed; the waiter's side comes from
/// find_wait_states).
class Synchronizations {
 public:
  Synchronizations(const LocalTrace& trace, const Definitions& definitions);
  /// The postings of this rank's sends (`sends`) or receives per peer.
  SyncPoints& posted(bool sends);

 private:
  const LocalTrace& trace_;
  const Definitions& definitions_;
  SyncPoints posted_sends_, posted_recvs_;
  bool posted_built_ = false;
};

/// Which wait states get a record (those whose delayer and partner
/// operation are known; the first `point_to_point` of `waits`), by
/// destination (a record needs a matched message: `matching`).
struct RecordPlan {
  std::vector<uint32_t> peers;        ///< destinations, ascending
  std::vector<std::size_t> records;   ///< records per destination
  std::vector<uint32_t> record_wait;  ///< wait state per record: destination-major, wait order
};
RecordPlan plan_records(const std::vector<WaitState>& waits, std::size_t point_to_point,
                        const MessageMatching& matching);

/// What writing and reading records needs.
struct RecordContext {
  const LocalTrace& trace;
  /// A record names the delayer's operations by their route numbers
  /// (MessageMatching::Route): the waiter looks them up in `matching`, the
  /// delayer finds its own operation in `routes`.
  const MessageMatching& matching;
  const MessageMatching::RouteIndex& routes;
  /// Per point-to-point wait state, the waiter's previous message with the
  /// delayer (find_wait_states).
  const std::vector<std::pair<uint32_t, uint32_t>>& message_syncs;
  Synchronizations& sync;
  const CollectiveDelays& collectives;
  IntervalProfiler& profiler;
  const CallpathKeys& keys;
};

/// Collective: sends every planned record to its delayer (over `channel`,
/// opened with the plan, batch by batch) and finds the delays there:
/// `delay_of_record` per incoming record (kNone: no delay here), the
/// delays in `pool`.
void exchange_records(const std::vector<WaitState>& waits, const RecordPlan& plan,
                      const RecordChannel& channel, RecordContext& context, DelayPool& pool,
                      DelayOfRecord& delay_of_record);

}  // namespace orrery::analyzer::delay

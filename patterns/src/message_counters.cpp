// Counts and bytes: local facts of the replay events, no exchange needed.

#include <type_traits>
#include <utility>

#include "all_patterns.h"
#include "orrery/replay/replay_events.h"

namespace orrery::patterns {
namespace {

using analyzer::CallPathCounts;
using analyzer::CollectiveCompleted;
using analyzer::MessageReceived;
using analyzer::MessageSent;

/// A counter metric over one replay event type: adds value(event) at the
/// event's call path (NoValue: none), and total(counts) per CallPathCounts
/// (NoTotals: none). `Value` and `Total` are the lambdas' own types (no
/// std::function: it runs per message).
struct NoValue {};
struct NoTotals {};

template <class Event, class Value, class Total>
class Counter final : public Pattern {
 public:
  Counter(MetricInfo info, Value value, Total total)
      : info_(std::move(info)), value_(std::move(value)), total_(std::move(total)) {}
  [[nodiscard]] MetricInfo info() const override { return info_; }
  void attach(PatternContext& context) override {
    const auto* ctx = &context;
    if constexpr (!std::is_same_v<Value, NoValue>) {
      context.bus.subscribe<Event>([this, ctx](const Event& e) {
        const auto [callpath, value] = value_(e);
        ctx->severities.add(row(), callpath, value);
      });
    }
    if constexpr (!std::is_same_v<Total, NoTotals>) {
      context.bus.subscribe<CallPathCounts>([this, ctx](const CallPathCounts& e) {
        ctx->severities.add(row(), e.callpath, static_cast<double>(total_(e)));
      });
    }
  }

 private:
  MetricInfo info_;
  [[no_unique_address]] Value value_;
  [[no_unique_address]] Total total_;
};

template <class Event, class Value, class Total = NoTotals>
std::unique_ptr<Pattern> counter(MetricInfo info, Value value, Total total = {}) {
  info.kind = MetricKind::kCounter;
  return std::make_unique<Counter<Event, Value, Total>>(std::move(info), std::move(value),
                                                        std::move(total));
}

}  // namespace

std::unique_ptr<Pattern> make_bytes_sent() {
  return counter<MessageSent>(
      {"bytes_sent", "Bytes Sent", "bytes", "", "Point-to-point bytes sent, at the send call.",
       "Large volumes: send less (compress, send only what changed) or overlap the transfer "
       "with work."},
      [](const MessageSent& e) { return std::pair{e.callpath, static_cast<double>(e.bytes)}; },
      [](const CallPathCounts& e) { return e.bytes_sent; });
}
std::unique_ptr<Pattern> make_bytes_received() {
  return counter<MessageReceived>(
      {"bytes_received", "Bytes Received", "bytes", "",
       "Point-to-point bytes received, at the call that completed the receive.",
       "Compare with the time in that call to see the effective bandwidth."},
      NoValue{}, [](const CallPathCounts& e) { return e.bytes_received; });
}
std::unique_ptr<Pattern> make_sends() {
  return counter<MessageSent>(
      {"sends", "Sends", "occ", "", "Number of point-to-point messages sent.",
       "Many small messages cost latency each: aggregate them."},
      [](const MessageSent& e) { return std::pair{e.callpath, 1.0}; },
      [](const CallPathCounts& e) { return e.sends; });
}
std::unique_ptr<Pattern> make_receives() {
  return counter<MessageReceived>(
      {"receives", "Receives", "occ", "", "Number of point-to-point messages received.",
       "Many small messages cost latency each: aggregate them."},
      NoValue{}, [](const CallPathCounts& e) { return e.receives; });
}
std::unique_ptr<Pattern> make_bytes_coll_out() {
  return counter<CollectiveCompleted>(
      {"bytes_coll_out", "Collective Bytes Out", "bytes", "",
       "Bytes this process contributed to collective operations.",
       "Large collective volumes scale badly with process count: reduce them or use "
       "neighborhood collectives."},
      [](const CollectiveCompleted& e) {
        return std::pair{e.call.callpath, static_cast<double>(e.bytes_sent)};
      });
}
std::unique_ptr<Pattern> make_bytes_coll_in() {
  return counter<CollectiveCompleted>(
      {"bytes_coll_in", "Collective Bytes In", "bytes", "",
       "Bytes this process received from collective operations.",
       "Large collective volumes scale badly with process count: reduce them or use "
       "neighborhood collectives."},
      [](const CollectiveCompleted& e) {
        return std::pair{e.call.callpath, static_cast<double>(e.bytes_received)};
      });
}
std::unique_ptr<Pattern> make_collectives() {
  return counter<CollectiveCompleted>(
      {"collectives", "Collective Operations", "occ", "",
       "Number of collective operations completed.",
       "Frequent small collectives are latency bound: combine them (one Allreduce of a "
       "vector instead of many of scalars)."},
      [](const CollectiveCompleted& e) {
        // MPI_Init and MPI_Finalize are replayed as collectives, but are none.
        const bool program_sync = e.kind == analyzer::CollectiveKind::kInit ||
                                  e.kind == analyzer::CollectiveKind::kFinalize;
        return std::pair{e.call.callpath, program_sync ? 0.0 : 1.0};
      });
}

}  // namespace orrery::patterns

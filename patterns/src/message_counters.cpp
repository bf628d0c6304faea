// Counts and bytes: local facts of the replay events, no exchange needed.

#include <utility>

#include "all_patterns.h"
#include "orrery/replay/replay_events.h"

namespace orrery::patterns {
namespace {

using analyzer::CollectiveCompleted;
using analyzer::MessageReceived;
using analyzer::MessageSent;

/// A counter metric over one replay event type: adds value(event) at the
/// event's call path. `Value` is the lambda's own type (no std::function: it
/// runs per message).
template <class Event, class Value>
class Counter final : public Pattern {
 public:
  Counter(MetricInfo info, Value value) : info_(std::move(info)), value_(std::move(value)) {}
  [[nodiscard]] MetricInfo info() const override { return info_; }
  void attach(PatternContext& context) override {
    const auto* ctx = &context;
    context.bus.subscribe<Event>([this, ctx](const Event& e) {
      const auto [callpath, value] = value_(e);
      ctx->severities.add(row(), callpath, value);
    });
  }

 private:
  MetricInfo info_;
  Value value_;
};

template <class Event, class Value>
std::unique_ptr<Pattern> counter(MetricInfo info, Value value) {
  info.kind = MetricKind::kCounter;
  return std::make_unique<Counter<Event, Value>>(std::move(info), std::move(value));
}

}  // namespace

std::unique_ptr<Pattern> make_bytes_sent() {
  return counter<MessageSent>(
      {"bytes_sent", "Bytes Sent", "bytes", "", "Point-to-point bytes sent, at the send call.",
       "Large volumes: send less (compress, send only what changed) or overlap the transfer "
       "with work."},
      [](const MessageSent& e) { return std::pair{e.callpath, static_cast<double>(e.bytes)}; });
}
std::unique_ptr<Pattern> make_bytes_received() {
  return counter<MessageReceived>(
      {"bytes_received", "Bytes Received", "bytes", "",
       "Point-to-point bytes received, at the call that completed the receive.",
       "Compare with the time in that call to see the effective bandwidth."},
      [](const MessageReceived& e) {
        return std::pair{e.callpath, static_cast<double>(e.bytes)};
      });
}
std::unique_ptr<Pattern> make_sends() {
  return counter<MessageSent>(
      {"sends", "Sends", "occ", "", "Number of point-to-point messages sent.",
       "Many small messages cost latency each: aggregate them."},
      [](const MessageSent& e) { return std::pair{e.callpath, 1.0}; });
}
std::unique_ptr<Pattern> make_receives() {
  return counter<MessageReceived>(
      {"receives", "Receives", "occ", "", "Number of point-to-point messages received.",
       "Many small messages cost latency each: aggregate them."},
      [](const MessageReceived& e) { return std::pair{e.callpath, 1.0}; });
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

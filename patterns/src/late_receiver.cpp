// Late Receiver: a sending call (a blocking send, or the wait that completes
// an Isend) blocked because the matching receive was posted later. The
// receiver's post time arrives with SendsCompleted (raised by the forward
// walk, or by the backward replay). A send that
// returned before the receive was posted did not wait for it (an eager
// send: the library buffered the message), so it is not counted, as
// Scalasca's scout does not count it either.

#include <algorithm>

#include "all_patterns.h"
#include "orrery/replay/replay_events.h"
#include "orrery/patterns/refined_events.h"

namespace orrery::patterns {
namespace {

using analyzer::SendsCompleted;

class LateReceiverPattern final : public Pattern {
 public:
  [[nodiscard]] MetricInfo info() const override {
    return {"late_receiver", "Late Receiver", "sec", "mpi_point2point",
            "Time a sender was blocked (in a blocking send or the wait that completes it) "
            "because the matching receive was posted later: min(enter(recv), exit(send)) - "
            "enter(send); in a call that also completed receives, counted only after its "
            "late senders arrived. Only sends that ended after the receive was posted count "
            "(the send really waited): an eager send that returned before the receive was "
            "posted is not a Late Receiver.",
            "The receiver is behind: post the receive earlier (MPI_Irecv before the work), "
            "avoid synchronous sends (MPI_Ssend) or send with MPI_Isend and wait later.",
            MetricKind::kWaitState};
  }
  void attach(PatternContext& context) override {
    const auto* ctx = &context;
    context.bus.subscribe<SendsCompleted>([this, ctx](const SendsCompleted& e) {
      if (e.latest_recv_enter == INT64_MIN) return;
      // Ended before the (latest) receive was posted: buffered, not waiting.
      if (e.call.exit <= e.latest_recv_enter) return;
      // Time the call spent waiting for its own late senders is Late Sender.
      const int64_t start = std::max(e.call.enter, std::min(e.latest_send_enter, e.call.exit));
      const int64_t waiting = std::min(e.latest_recv_enter, e.call.exit) - start;
      if (waiting <= 0) return;
      ctx->severities.add(row(), e.call.callpath,
                          static_cast<double>(waiting) * ctx->seconds_per_tick);
      ctx->bus.publish(LateReceiverFound{e.call, waiting});
    });
  }
};

class LateReceiverCountPattern final : public Pattern {
 public:
  [[nodiscard]] MetricInfo info() const override {
    return {"late_receiver_count", "Late Receiver Instances", "occ", "",
            "Number of sending calls that waited for a late receiver.",
            "Frequent instances with small messages suggest synchronous or rendezvous sends "
            "where buffered sends would do.",
            MetricKind::kCounter};
  }
  void attach(PatternContext& context) override {
    const auto* ctx = &context;
    context.bus.subscribe<LateReceiverFound>([this, ctx](const LateReceiverFound& e) {
      ctx->severities.add(row(), e.call.callpath, 1.0);
    });
  }
};

}  // namespace

std::unique_ptr<Pattern> make_late_receiver() { return std::make_unique<LateReceiverPattern>(); }
std::unique_ptr<Pattern> make_late_receiver_count() {
  return std::make_unique<LateReceiverCountPattern>();
}

}  // namespace orrery::patterns

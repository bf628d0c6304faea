// Late Sender: a receiving call (Recv, or the Wait* that completed an Irecv)
// blocked because the matching send started later. For a call completing
// several receives, the latest sender counts. It counts the instance in
// Late Sender Instances itself (one delivery fewer per receiving call) and
// raises LateSenderFound for the refinements (wrong order).

#include <algorithm>
#include <memory>

#include "all_patterns.h"
#include "orrery/replay/replay_events.h"
#include "orrery/patterns/refined_events.h"
#include "orrery/patterns/registry.h"

namespace orrery::patterns {
namespace {

using analyzer::ReceivesCompleted;

class LateSenderPattern final : public Pattern {
 public:
  [[nodiscard]] MetricInfo info() const override {
    return {"late_sender", "Late Sender", "sec", "mpi_point2point",
            "Time a receiver was blocked (in a receive or in the wait that completes it) "
            "because the matching send started later: min(enter(send), exit(recv)) - "
            "enter(recv). For a wait on several requests the latest sender counts.",
            "The sender is behind: balance the work that precedes the send, post receives "
            "earlier with MPI_Irecv and overlap them with computation, or send earlier.",
            MetricKind::kWaitState};
  }
  void attach(PatternContext& context) override {
    const auto* ctx = &context;
    const std::size_t count_row = context.registry.row("late_sender_count");
    // LateSenderFound's subscribers (Wrong Order), looked up once per
    // subscription (this bus's, even if the pattern is attached again).
    auto found = std::make_shared<analyzer::EventBus::CachedPublisher<LateSenderFound>>(context.bus);
    context.bus.subscribe<ReceivesCompleted>([this, ctx, count_row, found](const ReceivesCompleted& e) {
      const int64_t waiting = std::min(e.latest_send_enter, e.call.exit) - e.call.enter;
      if (waiting <= 0) return;
      // As severities.add, once for both rows (all rows are callpaths() long).
      SeverityMap& values = ctx->severities;
      if (e.call.callpath < values.callpaths()) {
        *values.cell(row(), e.call.callpath) += static_cast<double>(waiting) * ctx->seconds_per_tick;
        *values.cell(count_row, e.call.callpath) += 1.0;
      }
      (*found)(LateSenderFound{e.call, waiting, e.latest_send_enter});
    });
  }
};

/// Filled by LateSenderPattern (an instance per LateSenderFound it raises).
class LateSenderCountPattern final : public Pattern {
 public:
  [[nodiscard]] MetricInfo info() const override {
    return {"late_sender_count", "Late Sender Instances", "occ", "",
            "Number of receiving calls that waited for a late sender.",
            "Many short instances point to fine-grained imbalance; few long ones to a "
            "structural delay on the sending side.",
            MetricKind::kCounter};
  }
};

}  // namespace

std::unique_ptr<Pattern> make_late_sender() { return std::make_unique<LateSenderPattern>(); }
std::unique_ptr<Pattern> make_late_sender_count() {
  return std::make_unique<LateSenderCountPattern>();
}

}  // namespace orrery::patterns

// Late Sender, Wrong Order: a Late Sender instance is reclassified when a
// later receive takes a message that was sent before the late one and that
// the receiver could have taken while it waited: its receive was already
// posted, or posted before the waiting call ended (and the message was sent
// before then). A message whose receive the program posted only after the
// wait (the next iteration's halo from a fast neighbour) could not have been
// received in another order, and does not count. Recent instances are kept
// in a small window, as Scalasca does.

#include <algorithm>
#include <deque>

#include "all_patterns.h"
#include "orrery/replay/replay_events.h"
#include "orrery/patterns/refined_events.h"
#include "orrery/patterns/registry.h"

namespace orrery::patterns {
namespace {

using analyzer::MessageReceived;

class LateSenderWrongOrderPattern final : public Pattern {
 public:
  [[nodiscard]] MetricInfo info() const override {
    return {"late_sender_wrong_order", "Late Sender, Wrong Order", "sec", "late_sender",
            "Part of Late Sender where a message sent earlier was available and was received "
            "later: the receiver waited for messages in a different order than they were sent, "
            "although the earlier one's receive was already posted (or posted before the wait "
            "ended), so it could have been taken first.",
            "Complete the posted receives in the order their messages arrive: MPI_Waitany / "
            "MPI_Waitsome over the requests (or MPI_ANY_SOURCE) instead of waiting for a fixed "
            "one first.",
            MetricKind::kWaitState};
  }
  void attach(PatternContext& context) override {
    const auto* ctx = &context;
    late_sender_row_ = context.registry.row("late_sender");
    context.bus.subscribe<LateSenderFound>([this](const LateSenderFound& e) {
      window_.push_back(e);
      if (window_.size() > kWindow) window_.pop_front();
      latest_send_ = std::max(latest_send_, e.send_enter);
    });
    context.bus.subscribe<MessageReceived>([this, ctx](const MessageReceived& m) {
      // Most messages were sent after every buffered late send: nothing to do.
      if (window_.empty() || m.send_enter >= latest_send_) return;
      for (auto it = window_.begin(); it != window_.end();) {
        const bool could_take = m.post_enter < it->call.exit && m.send_enter < it->call.exit;
        if (m.send_enter < it->send_enter && m.call_enter > it->call.enter && could_take) {
          const double seconds = static_cast<double>(it->waiting) * ctx->seconds_per_tick;
          ctx->severities.add(late_sender_row_, it->call.callpath, -seconds);
          ctx->severities.add(row(), it->call.callpath, seconds);
          it = window_.erase(it);
        } else {
          ++it;
        }
      }
    });
  }

 private:
  static constexpr std::size_t kWindow = 100;
  std::deque<LateSenderFound> window_;
  int64_t latest_send_ = INT64_MIN;  ///< upper bound of the window's send enters
  std::size_t late_sender_row_ = 0;
};

}  // namespace

std::unique_ptr<Pattern> make_late_sender_wrong_order() {
  return std::make_unique<LateSenderWrongOrderPattern>();
}

}  // namespace orrery::patterns

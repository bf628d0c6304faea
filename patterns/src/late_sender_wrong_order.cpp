// Late Sender, Wrong Order: a Late Sender instance is reclassified when a
// later receive takes a message that was sent before the late one and that
// the receiver could have taken while it waited: its receive was already
// posted, or posted before the waiting call ended (and the message was sent
// before then). A message whose receive the program posted only after the
// wait (the next iteration's halo from a fast neighbour) could not have been
// received in another order, and does not count. Recent instances are kept
// in a small window, as Scalasca does.

#include <algorithm>
#include <array>

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
      window_.push(e);
      latest_send_ = std::max(latest_send_, e.send_enter);
    });
    context.bus.subscribe<MessageReceived>([this, ctx](const MessageReceived& m) {
      // Most messages were sent after every buffered late send: nothing to do.
      if (window_.empty() || m.send_enter >= latest_send_) return;
      for (std::size_t k = 0; k < window_.size();) {
        const LateSenderFound& found = window_[k];
        const bool could_take = m.post_enter < found.call.exit && m.send_enter < found.call.exit;
        if (m.send_enter < found.send_enter && m.call_enter > found.call.enter && could_take) {
          const double seconds = static_cast<double>(found.waiting) * ctx->seconds_per_tick;
          ctx->severities.add(late_sender_row_, found.call.callpath, -seconds);
          ctx->severities.add(row(), found.call.callpath, seconds);
          window_.erase(k);
        } else {
          ++k;
        }
      }
    });
  }

 private:
  static constexpr std::size_t kWindow = 100;

  /// The latest kWindow instances, oldest first, in a ring (a deque's
  /// push and pop cost more than the rest of this pattern per instance).
  class Window {
   public:
    [[nodiscard]] bool empty() const { return count_ == 0; }
    [[nodiscard]] std::size_t size() const { return count_; }
    const LateSenderFound& operator[](std::size_t k) const { return slots_[wrap(head_ + k)]; }
    /// Appends `found` at the tail, dropping the oldest when full.
    void push(const LateSenderFound& found) {
      slots_[tail_] = found;
      tail_ = wrap(tail_ + 1);
      if (count_ == kWindow) {
        head_ = tail_;
      } else {
        ++count_;
      }
    }
    /// Removes the k-th oldest; the later ones move up (order is kept).
    void erase(std::size_t k) {
      for (; k + 1 < count_; ++k) slots_[wrap(head_ + k)] = slots_[wrap(head_ + k + 1)];
      --count_;
      tail_ = wrap(head_ + count_);
    }

   private:
    static std::size_t wrap(std::size_t index) { return index >= kWindow ? index - kWindow : index; }
    std::array<LateSenderFound, kWindow> slots_{};
    std::size_t head_ = 0;
    std::size_t tail_ = 0;  ///< where the next one goes: wrap(head_ + count_)
    std::size_t count_ = 0;
  };

  Window window_;
  int64_t latest_send_ = INT64_MIN;  ///< upper bound of the window's send enters
  std::size_t late_sender_row_ = 0;
};

}  // namespace

std::unique_ptr<Pattern> make_late_sender_wrong_order() {
  return std::make_unique<LateSenderWrongOrderPattern>();
}

}  // namespace orrery::patterns

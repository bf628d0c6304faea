#pragma once
// Typed publish/subscribe between the replay and the patterns. Each event
// type is a small struct; a subscriber registers for the types it needs, and
// patterns publish refined events (e.g. a Late Sender instance) the same way.

#include <atomic>
#include <cstddef>
#include <functional>
#include <vector>

namespace orrery::analyzer {

/// Routes each event type to its subscribers, in subscription order.
class EventBus {
 public:
  template <class Event>
  void subscribe(std::function<void(const Event&)> handler) {
    const std::size_t slot = slot_of<Event>();
    if (slot >= handlers_.size()) handlers_.resize(slot + 1);
    handlers_[slot].push_back([h = std::move(handler)](const void* event) {
      h(*static_cast<const Event*>(event));
    });
  }

  template <class Event>
  void publish(const Event& event) const {
    const std::size_t slot = slot_of<Event>();
    if (slot >= handlers_.size()) return;
    for (const auto& handler : handlers_[slot]) handler(&event);
  }

  template <class Event>
  [[nodiscard]] bool has_subscribers() const {
    const std::size_t slot = slot_of<Event>();
    return slot < handlers_.size() && !handlers_[slot].empty();
  }

 private:
  static std::size_t next_slot() {
    static std::atomic<std::size_t> counter{0};
    return counter++;
  }
  template <class Event>
  static std::size_t slot_of() {
    static const std::size_t slot = next_slot();
    return slot;
  }

  std::vector<std::vector<std::function<void(const void*)>>> handlers_;
};

}  // namespace orrery::analyzer

#pragma once
// Typed publish/subscribe between the replay and the patterns. Each event
// type is a small struct; a subscriber registers for the types it needs, and
// patterns publish refined events (e.g. a Late Sender instance) the same way.

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

namespace orrery::analyzer {

/// Routes each event type to its subscribers, in subscription order.
class EventBus {
 public:
  template <class Event>
  void subscribe(std::function<void(const Event&)> handler) {
    const std::size_t slot = slot_of<Event>();
    if (slot >= handlers_.size()) handlers_.resize(slot + 1);
    // One indirect call per delivery: a plain function pointer that casts
    // back to the typed handler (kept alive in owned_).
    auto owned = std::make_shared<std::function<void(const Event&)>>(std::move(handler));
    handlers_[slot].push_back(Handler{owned.get(), [](const void* state, const void* event) {
      (*static_cast<const std::function<void(const Event&)>*>(state))(
          *static_cast<const Event*>(event));
    }});
    owned_.push_back(std::move(owned));
  }

  template <class Event>
  void publish(const Event& event) const {
    const std::size_t slot = slot_of<Event>();
    if (slot >= handlers_.size()) return;
    for (const Handler& handler : handlers_[slot]) handler.call(handler.state, &event);
  }

  template <class Event>
  [[nodiscard]] bool has_subscribers() const {
    const std::size_t slot = slot_of<Event>();
    return slot < handlers_.size() && !handlers_[slot].empty();
  }

 private:
  struct Handler {
    const void* state;
    void (*call)(const void* state, const void* event);
  };

  static std::size_t next_slot() {
    static std::atomic<std::size_t> counter{0};
    return counter++;
  }
  template <class Event>
  static std::size_t slot_of() {
    static const std::size_t slot = next_slot();
    return slot;
  }

  std::vector<std::vector<Handler>> handlers_;
  std::vector<std::shared_ptr<void>> owned_;
};

}  // namespace orrery::analyzer

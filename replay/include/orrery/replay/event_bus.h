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
  /// One subscriber: its handler and the function that calls it.
  struct Entry {
    const void* state;
    void (*call)(const void* state, const void* event);
  };

 public:
  /// Registers `handler` (any callable taking `const Event&`) for `Event`.
  template <class Event, class Handler>
  void subscribe(Handler handler) {
    const std::size_t slot = slot_of<Event>();
    if (slot >= handlers_.size()) handlers_.resize(slot + 1);
    // One indirect call per delivery: a plain function pointer that calls
    // the handler's own type directly (kept alive in owned_).
    auto owned = std::make_shared<Handler>(std::move(handler));
    handlers_[slot].push_back(Entry{owned.get(), [](const void* state, const void* event) {
      (*static_cast<const Handler*>(state))(*static_cast<const Event*>(event));
    }});
    owned_.push_back(std::move(owned));
    ++subscriptions_;
  }

  template <class Event>
  void publish(const Event& event) const {
    const std::size_t slot = slot_of<Event>();
    if (slot >= handlers_.size()) return;
    for (const Entry& entry : handlers_[slot]) entry.call(entry.state, &event);
  }

  /// The subscribers of `Event`, looked up once for a loop that publishes
  /// many events of the type (valid until the next subscribe).
  template <class Event>
  class Publisher {
   public:
    void operator()(const Event& event) const {
      // Most types have one subscriber: a call without the loop's compares.
      if (end_ - begin_ == 1) [[likely]] {
        begin_->call(begin_->state, &event);
        return;
      }
      for (const Entry* entry = begin_; entry != end_; ++entry) entry->call(entry->state, &event);
    }
    [[nodiscard]] bool active() const { return begin_ != end_; }

   private:
    friend class EventBus;
    const Entry* begin_ = nullptr;
    const Entry* end_ = nullptr;
  };

  template <class Event>
  [[nodiscard]] Publisher<Event> publisher() const {
    Publisher<Event> publisher;
    const std::size_t slot = slot_of<Event>();
    if (slot < handlers_.size()) {
      publisher.begin_ = handlers_[slot].data();
      publisher.end_ = publisher.begin_ + handlers_[slot].size();
    }
    return publisher;
  }

  /// A publisher that stays right across later subscribes: it looks the
  /// subscribers up again when anyone subscribed since (one compare per
  /// event). For a pattern that raises a refined event from inside another
  /// event's delivery, where publish() would look the type up every time.
  template <class Event>
  class CachedPublisher {
   public:
    explicit CachedPublisher(const EventBus& bus) : bus_(&bus) {}
    void operator()(const Event& event) {
      if (subscriptions_ != bus_->subscriptions_) [[unlikely]] {
        publisher_ = bus_->publisher<Event>();
        subscriptions_ = bus_->subscriptions_;
      }
      publisher_(event);
    }

   private:
    const EventBus* bus_;
    Publisher<Event> publisher_;
    std::size_t subscriptions_ = ~std::size_t{0};
  };

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

  std::vector<std::vector<Entry>> handlers_;
  std::vector<std::shared_ptr<void>> owned_;
  std::size_t subscriptions_ = 0;  ///< subscribe() calls so far (CachedPublisher)
};

}  // namespace orrery::analyzer

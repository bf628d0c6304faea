#pragma once
// Publishes many events of one type in batches (delay_events.h: the delay
// analysis raises one per delay entry and per wait state, millions on a
// communication-heavy trace): the subscribers of the batch type get one
// delivery per batch, in order; the subscribers of the single event still
// get every event, in the same order.

#include <array>
#include <cstddef>

#include "orrery/replay/event_bus.h"

namespace orrery::analyzer {

/// `Batch` has a pointer to the first event and a count (DelayCostsFound).
template <class Event, class Batch>
class BatchedPublisher {
 public:
  static constexpr std::size_t kCapacity = 1024;

  explicit BatchedPublisher(const EventBus& bus)
      : batches_(bus.publisher<Batch>()), singles_(bus.publisher<Event>()) {}
  BatchedPublisher(const BatchedPublisher&) = delete;
  BatchedPublisher& operator=(const BatchedPublisher&) = delete;
  ~BatchedPublisher() = default;

  void operator()(const Event& event) {
    buffer_[size_++] = event;
    if (size_ == kCapacity) flush();
  }
  /// Delivers what is buffered: at the end, and before events of the same
  /// cells are published by other means (the order of additions stays).
  void flush() {
    if (size_ == 0) return;
    if (batches_.active()) batches_(Batch{buffer_.data(), size_});
    if (singles_.active()) {
      for (std::size_t k = 0; k < size_; ++k) singles_(buffer_[k]);
    }
    size_ = 0;
  }

 private:
  EventBus::Publisher<Batch> batches_;
  EventBus::Publisher<Event> singles_;
  std::array<Event, kCapacity> buffer_{};
  std::size_t size_ = 0;
};

}  // namespace orrery::analyzer

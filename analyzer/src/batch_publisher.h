#pragma once
// Publishes many events of one type as batches (a struct of `items` and
// `count`, e.g. DelayCostBatch): one delivery per batch instead of one per
// event, so that a subscriber loops over the items with its state in
// registers. Items collected while nobody subscribed are dropped at once.

#include <cstddef>
#include <vector>

#include "orrery/replay/event_bus.h"

namespace orrery::analyzer {

template <class Batch, class Item>
class BatchPublisher {
 public:
  static constexpr std::size_t kItems = 1024;  ///< 32 KiB of 32-byte items: stays in L1

  explicit BatchPublisher(const EventBus& bus) : publish_(bus.publisher<Batch>()) {
    if (publish_.active()) items_.reserve(kItems);
  }
  void add(const Item& item) {
    if (!publish_.active()) return;
    items_.push_back(item);
    if (items_.size() == kItems) flush();
  }
  /// Delivers what was collected (before anything else that adds to the
  /// subscribers' cells, so that every cell's additions keep their order).
  void flush() {
    if (items_.empty()) return;
    publish_(Batch{items_.data(), items_.size()});
    items_.clear();
  }

 private:
  EventBus::Publisher<Batch> publish_;
  std::vector<Item> items_;
};

}  // namespace orrery::analyzer

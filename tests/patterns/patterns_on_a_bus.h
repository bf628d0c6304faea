#pragma once
// The patterns of one rank attached to an EventBus, three call paths
// (root 0 with children 1 and 2), for pattern-level tests: publish replay
// events, read the severities back.

#include <cstdint>
#include <string_view>

#include "orrery/patterns/pattern.h"
#include "orrery/patterns/registry.h"
#include "orrery/replay/event_bus.h"
#include "orrery/trace/call_tree.h"
#include "orrery/trace/trace.h"

namespace orrery::patterns {

class PatternsOnABus {
 public:
  /// `seconds_per_tick`: the factor from the events' ticks to the severities.
  explicit PatternsOnABus(double seconds_per_tick = 1.0)
      : severities_(registry_.size(), 3),
        context_{bus_, severities_, definitions_, tree_, registry_, seconds_per_tick} {
    const uint32_t root = tree_.child(analyzer::kNone, 0);
    tree_.child(root, 1);
    tree_.child(root, 2);
    registry_.attach_all(context_);
  }
  template <class Event>
  void publish(const Event& event) {
    bus_.publish(event);
  }
  analyzer::EventBus& bus() { return bus_; }
  [[nodiscard]] double value(std::string_view metric, uint32_t callpath) const {
    return severities_.get(registry_.row(metric), callpath);
  }

 private:
  analyzer::EventBus bus_;
  PatternRegistry registry_;
  SeverityMap severities_;
  analyzer::Definitions definitions_;
  analyzer::CallTree tree_;
  PatternContext context_;
};

}  // namespace orrery::patterns

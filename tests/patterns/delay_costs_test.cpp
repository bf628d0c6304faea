// The delay analysis' events in batches (delay_events.h): the patterns add
// each batch's entries in order, exactly as one event each would, and the
// analyzer's BatchedPublisher delivers every event once, in order, to the
// batch subscribers and to the single-event subscribers alike.

#include <gtest/gtest.h>

#include <cstdint>
#include <string_view>
#include <vector>

#include "batched_publisher.h"
#include "orrery/replay/delay_events.h"
#include "orrery/replay/event_bus.h"
#include "patterns_on_a_bus.h"

namespace orrery::patterns {
namespace {

using namespace analyzer;  // NOLINT: the delay analysis' events

/// The patterns of one rank on a bus; one tick = 0.1 s (a factor that
/// rounds: sums must add the products one by one).
class Patterns : public PatternsOnABus {
 public:
  Patterns() : PatternsOnABus(0.1) {}
};

TEST(DelayCostBatches, EachEntryGoesToItsKindAndTermInOrder) {
  Patterns p;
  const std::vector<DelayCostFound> costs{
      {WaitKind::kLateSender, 1, 3.0, 7.0},
      {WaitKind::kLateSender, 1, 0.7, 0.0},   // no long-term part: nothing added there
      {WaitKind::kBarrier, 2, 5.0, -1.0},     // negative: nothing added
      {WaitKind::kLateReceiver, 9, 4.0, 4.0}, // no such call path: skipped
      {WaitKind::kLateSender, 1, 1.3, 0.2},
  };
  p.bus().publish(DelayCostsFound{costs.data(), costs.size()});
  // The same additions one by one, in the batch's order.
  EXPECT_EQ(p.value("delay_late_sender_short_term", 1), ((0.0 + 3.0 * 0.1) + 0.7 * 0.1) + 1.3 * 0.1);
  EXPECT_EQ(p.value("delay_late_sender_long_term", 1), (0.0 + 7.0 * 0.1) + 0.2 * 0.1);
  EXPECT_EQ(p.value("delay_barrier_short_term", 2), 5.0 * 0.1);
  EXPECT_EQ(p.value("delay_barrier_long_term", 2), 0.0);
  EXPECT_EQ(p.value("delay_late_receiver_short_term", 1), 0.0);
  EXPECT_EQ(p.value("delay_late_sender_short_term", 2), 0.0);
}

TEST(DelayCostBatches, ClassesSplitEachWaitInFour) {
  Patterns p;
  const std::vector<WaitStateClassified> waits{
      {WaitKind::kLateSender, 1, 10.0, 4.0, 3.0},
      {WaitKind::kLateReceiver, 1, 6.0, 0.0, 6.0},  // all direct, all propagating
      {WaitKind::kLateSender, 7, 5.0, 1.0, 1.0},    // no such call path: skipped
  };
  p.bus().publish(WaitStatesClassified{waits.data(), waits.size()});
  EXPECT_EQ(p.value("wait_direct", 1), 6.0 * 0.1 + 6.0 * 0.1);
  EXPECT_EQ(p.value("wait_indirect", 1), 4.0 * 0.1);
  EXPECT_EQ(p.value("wait_propagating", 1), 3.0 * 0.1 + 6.0 * 0.1);
  EXPECT_EQ(p.value("wait_terminal", 1), 7.0 * 0.1);
}

TEST(BatchedPublisher, DeliversEveryEventOnceInOrderAcrossBatches) {
  using Publisher = analyzer::BatchedPublisher<DelayCostFound, DelayCostsFound>;
  analyzer::EventBus bus;
  std::vector<uint32_t> singles, batched;
  std::vector<std::size_t> batch_sizes;
  bus.subscribe<DelayCostFound>([&](const DelayCostFound& e) { singles.push_back(e.callpath); });
  bus.subscribe<DelayCostsFound>([&](const DelayCostsFound& batch) {
    batch_sizes.push_back(batch.count);
    for (std::size_t k = 0; k < batch.count; ++k) batched.push_back(batch.costs[k].callpath);
  });
  const std::size_t events = 2 * Publisher::kCapacity + 5;
  {
    Publisher publish(bus);
    for (std::size_t k = 0; k < events; ++k) {
      publish(DelayCostFound{WaitKind::kLateSender, static_cast<uint32_t>(k), 1.0, 0.0});
    }
    EXPECT_EQ(batched.size(), 2 * Publisher::kCapacity);  // full batches go at once
    publish.flush();
    publish.flush();  // nothing left: no empty batch
  }
  ASSERT_EQ(singles.size(), events);
  ASSERT_EQ(batched.size(), events);
  for (std::size_t k = 0; k < events; ++k) {
    EXPECT_EQ(singles[k], k);
    EXPECT_EQ(batched[k], k);
  }
  EXPECT_EQ(batch_sizes, (std::vector<std::size_t>{Publisher::kCapacity, Publisher::kCapacity, 5}));
}

TEST(BatchedPublisher, WithoutSubscribersNothingIsDelivered) {
  analyzer::EventBus bus;
  std::size_t delivered = 0;
  bus.subscribe<WaitStateClassified>([&](const WaitStateClassified&) { ++delivered; });
  analyzer::BatchedPublisher<DelayCostFound, DelayCostsFound> publish(bus);
  publish(DelayCostFound{});
  publish.flush();
  EXPECT_EQ(delivered, 0u);
}

}  // namespace
}  // namespace orrery::patterns

// The propagation rounds' passing shares (delay_model.h PassingShares):
// pass_on into an array that was not cleared gives, bit for bit, what
// clearing it and adding every share in order gives — for delays with one
// own wait state and with several (marked last in the pool), for
// wait states several delays share to, for a delay with nothing to pass in
// a round, and without the delays that pass nothing on.

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "delay_model.h"

namespace orrery::analyzer::delay {
namespace {

/// Adds a delay whose own wait states are `own` (wait state, ticks).
void add_delay(DelayPool& pool, int64_t waiting, double excess_waiting, double total,
               const std::vector<std::pair<uint32_t, int64_t>>& own) {
  Delay delay;
  delay.waiting_ticks = waiting;
  delay.excess_waiting = excess_waiting;
  delay.total = total;
  delay.waits_begin = static_cast<uint32_t>(pool.waits.size());
  for (const auto& [wait, ticks] : own) {
    pool.waits.push_back(OwnWait{wait, ticks});
    delay.waits_total += ticks;
  }
  pool.delays.push_back(delay);
}

/// The rounds' definition: next cleared, then every share added in order.
std::vector<double> reference(const DelayPool& pool, const std::vector<uint32_t>& passing,
                              const std::vector<double>& arrived, std::size_t waits) {
  std::vector<double> next(waits, 0.0);
  for (std::size_t k = 0; k < passing.size(); ++k) {
    const uint32_t d = passing[k];
    const Delay& delay = pool.delays[d];
    const double amount = (delay.waiting() + arrived[k]) * delay.excess_waiting / delay.total;
    if (amount <= 0) continue;
    for (uint32_t w = delay.waits_begin; w < pool.waits_end(d); ++w) {
      next[pool.waits[w].wait] +=
          amount * static_cast<double>(pool.waits[w].ticks) / static_cast<double>(delay.waits_total);
    }
  }
  return next;
}

TEST(DelayShares, PassOnWithoutClearingEqualsClearingAndAddingInOrder) {
  constexpr std::size_t kWaits = 8;
  DelayPool pool;
  add_delay(pool, 7, 3.0, 11.0, {{2, 5}});                  // one own wait state
  add_delay(pool, 9, 1.0, 7.0, {{4, 3}, {2, 13}, {6, 1}});  // several; 2 again
  add_delay(pool, 0, 2.0, 5.0, {{5, 4}});                   // nothing to pass in round 0
  add_delay(pool, 13, 5.0, 17.0, {{4, 9}});                 // 4 again, inline after a list
  add_delay(pool, 3, 1.0, 3.0, {});                         // not passing: no own wait states
  const std::vector<uint32_t> passing{0, 1, 2, 3};
  // Per incoming record its delay (kNone: none found): delay 4 does not pass.
  const std::vector<uint32_t> delay_of_record{0, kNone, 1, 4, 2, 3};
  const DelayPool copy_for_reference = [&] {
    DelayPool copy;
    copy.delays = pool.delays;
    for (std::size_t w = 0; w < pool.waits.size(); ++w) copy.waits.push_back(pool.waits[w]);
    return copy;
  }();
  std::vector<uint8_t> passes;
  const PassingShares shares(pool, delay_of_record, passes, kWaits);
  EXPECT_EQ(passes, (std::vector<uint8_t>{1, 0, 1, 0, 1, 1}));
  ASSERT_EQ(shares.size(), 4u);
  for (std::size_t k = 0; k < passing.size(); ++k) EXPECT_EQ(shares.delay(k), passing[k]);
  for (const uint32_t wait : {2u, 4u, 5u, 6u}) EXPECT_TRUE(shares.targets(wait));
  for (const uint32_t wait : {0u, 1u, 3u, 7u}) EXPECT_FALSE(shares.targets(wait));

  // Rounds with changing arrivals; `next` keeps whatever the round before
  // the last left (the two arrays swap), untargeted entries stay as they are.
  std::vector<double> next(kWaits, 0.0), previous(kWaits, 0.0);
  const std::vector<std::vector<double>> rounds{
      {0.0, 0.0, 0.0, 0.0}, {1.5, 0.25, 2.0, 0.1}, {3.75, 1.0 / 3.0, 2.5, 7.0}};
  for (const std::vector<double>& arrived : rounds) {
    shares.pass_on(arrived, next);
    const std::vector<double> expected = reference(copy_for_reference, passing, arrived, kWaits);
    for (std::size_t w = 0; w < kWaits; ++w) EXPECT_EQ(next[w], expected[w]) << "wait " << w;
    next.swap(previous);
  }

  // share() gives the same shares one by one, for both layouts.
  std::vector<std::pair<uint32_t, double>> given;
  shares.share(1, 10.0, [&](uint32_t wait, double value) { given.emplace_back(wait, value); });
  shares.share(0, 10.0, [&](uint32_t wait, double value) { given.emplace_back(wait, value); });
  const std::vector<std::pair<uint32_t, double>> expected{
      {4, 10.0 * 3.0 / 17.0}, {2, 10.0 * 13.0 / 17.0}, {6, 10.0 * 1.0 / 17.0}, {2, 10.0 * 5.0 / 5.0}};
  EXPECT_EQ(given, expected);
}

}  // namespace
}  // namespace orrery::analyzer::delay

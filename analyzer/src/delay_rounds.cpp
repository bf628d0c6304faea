// The propagation rounds' view of the passing delays (delay_model.h).

#include "delay_model.h"

namespace orrery::analyzer::delay {

PassingShares::PassingShares(const DelayPool& pool, const std::vector<uint32_t>& passing) {
  delays_.reserve(passing.size());
  for (const uint32_t d : passing) {
    const Delay& delay = pool.delays[d];
    for (uint32_t w = delay.waits_begin, end = pool.waits_end(d); w < end; ++w) {
      wait_.push_back(pool.waits[w].wait);
      ticks_.push_back(static_cast<double>(pool.waits[w].ticks));
    }
    delays_.push_back(Passing{delay.waiting, delay.excess_waiting, delay.total,
                              static_cast<double>(delay.waits_total),
                              static_cast<uint32_t>(wait_.size())});
  }
}

void PassingShares::pass_on(const std::vector<double>& arrived, std::vector<double>& next) const {
  const uint32_t* const wait = wait_.data();
  const double* const ticks = ticks_.data();
  double* const to = next.data();
  uint32_t w = 0;
  for (std::size_t k = 0; k < delays_.size(); ++k) {
    const Passing& delay = delays_[k];
    const double amount = (delay.waiting + arrived[k]) * delay.excess_waiting / delay.total;
    // As share_over_waits: nothing for no amount (waits_total > 0: they pass on).
    if (!(amount <= 0)) {
      for (; w < delay.end; ++w) to[wait[w]] += amount * ticks[w] / delay.waits_total;
    }
    w = delay.end;
  }
}

}  // namespace orrery::analyzer::delay

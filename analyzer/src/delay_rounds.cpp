// The propagation rounds' view of the passing delays (delay_model.h).

#include "delay_model.h"

namespace orrery::analyzer::delay {

void PassingShares::pass_on(const std::vector<double>& arrived, std::vector<double>& next) const {
  const Delay* const delays = pool_.delays.data();
  const std::size_t count = pool_.delays.size();
  const auto total_waits = static_cast<uint32_t>(pool_.waits.size());
  double* const to = next.data();
  for (std::size_t k = 0; k < delay_.size(); ++k) {
    const uint32_t d = delay_[k];
    const Delay& delay = delays[d];
    const double amount = (delay.waiting + arrived[k]) * delay.excess_waiting / delay.total;
    // As share(): nothing for no amount (waits_total > 0: they pass on).
    if (amount <= 0) continue;
    const double waits_total = static_cast<double>(delay.waits_total);
    const uint32_t end = d + 1 < count ? delays[d + 1].waits_begin : total_waits;
    for (uint32_t w = delay.waits_begin; w < end; ++w) {
      const OwnWait& own = pool_.waits[w];
      to[own.wait] += amount * static_cast<double>(own.ticks) / waits_total;
    }
  }
}

}  // namespace orrery::analyzer::delay

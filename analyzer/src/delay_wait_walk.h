#pragma once
// What the two ways of finding the point-to-point wait states share
// (delay_wait_states.cpp: one pass over tables in call order;
// delay_wait_states_sorted.cpp: completions sorted by call first).

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

#include "delay_model.h"

namespace orrery::analyzer::delay {

/// Per peer, the message of one direction completed last so far (the Leave
/// of its completing call, its own operation index), while the completing
/// calls are walked in order. Peers are world ranks: a flat array up to
/// kDensePeers (a load per message), a map beyond (a corrupt definition's
/// huge rank must not allocate gigabytes).
class LastCompleted {
 public:
  [[nodiscard]] std::pair<uint32_t, uint32_t> get(uint32_t peer) const {
    if (peer < last_.size()) return last_[peer];
    if (peer < kDensePeers || far_.empty()) return {kNone, kNone};
    const auto found = far_.find(peer);
    return found == far_.end() ? std::make_pair(kNone, kNone) : found->second;
  }
  void set(uint32_t peer, uint32_t leave, uint32_t op) {
    if (peer < last_.size()) [[likely]] {
      last_[peer] = {leave, op};
    } else if (peer < kDensePeers) {
      const std::size_t grown = std::max<std::size_t>(std::size_t{peer} + 1, 2 * last_.size());
      last_.resize(std::min<std::size_t>(grown, kDensePeers), std::make_pair(kNone, kNone));
      last_[peer] = {leave, op};
    } else {
      far_[peer] = {leave, op};
    }
  }

 private:
  static constexpr uint32_t kDensePeers = uint32_t{1} << 20;  ///< 8 MiB at most
  std::vector<std::pair<uint32_t, uint32_t>> last_;
  std::unordered_map<uint32_t, std::pair<uint32_t, uint32_t>> far_;
};

/// The synchronization points of `waits` by search (when a completing call
/// lies inside another, the walks' last message per peer is not the one
/// before the call).
void find_syncs_by_search(const LocalTrace& trace, const Definitions& definitions,
                          const std::vector<WaitState>& waits,
                          std::vector<std::pair<uint32_t, uint32_t>>& syncs);

}  // namespace orrery::analyzer::delay

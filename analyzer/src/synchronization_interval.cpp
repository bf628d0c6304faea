// Interval profiles for the delay analysis (synchronization_interval.h).
// The time between two consecutive kept events belongs to the innermost
// open region, minus the folded callees that ran in that gap.

#include "orrery/analyzer/synchronization_interval.h"

#include "interval_walk.h"

#include <algorithm>


namespace orrery::analyzer {

std::vector<uint64_t> callpath_keys(const CallTree& tree) {
  // Parents have smaller ids than their children (call_tree.h).
  std::vector<uint64_t> keys(tree.size());
  const auto& nodes = tree.nodes();
  for (std::size_t c = 0; c < nodes.size(); ++c) {
    uint64_t key = nodes[c].parent == kNone ? 0x9e3779b97f4a7c15ULL : keys[nodes[c].parent];
    key ^= nodes[c].region + 0x9e3779b97f4a7c15ULL + (key << 6) + (key >> 2);
    key *= 0xff51afd7ed558ccdULL;
    keys[c] = key ^ (key >> 33);
  }
  return keys;
}

CallpathKeys::CallpathKeys(const CallTree& tree) : keys_(callpath_keys(tree)) {
  std::size_t capacity = 16;
  while (capacity < 2 * keys_.size()) capacity *= 2;
  slots_.assign(capacity, kNone);
  const std::size_t mask = capacity - 1;
  for (uint32_t c = 0; c < keys_.size(); ++c) {
    std::size_t slot = static_cast<std::size_t>(keys_[c]) & mask;
    while (slots_[slot] != kNone) slot = (slot + 1) & mask;
    slots_[slot] = c;
  }
}



/// profile()'s output: the vectors of one IntervalProfile.
struct IntervalProfiler::SingleOut {
  IntervalProfile& profile;
  void wait(uint32_t wait, int64_t ticks) { profile.waits.emplace_back(wait, ticks); }
  void time(uint32_t callpath, int64_t ticks) { profile.time.emplace_back(callpath, ticks); }
};

IntervalProfiler::IntervalProfiler(const LocalTrace& trace, const CallTree& tree,
                                   std::vector<std::pair<uint32_t, uint32_t>> waits,
                                   WaitingTicks waiting)
    : trace_(trace), waits_(std::move(waits)), waiting_(waiting),
      none_(static_cast<uint32_t>(tree.size())), parent_slot_(tree.size()),
      scratch_(tree.size() + 1, 0), stamp_(tree.size() + 1, 0), touched_(tree.size() + 1, 0) {
  // Slot tree.size() stands for "no call path" (before the first Enter, or
  // a reference that is none): its time is summed and never listed.
  for (std::size_t c = 0; c < tree.size(); ++c) {
    const uint32_t parent = tree.nodes()[c].parent;
    parent_slot_[c] = parent < none_ ? parent : none_;
  }
}

IntervalProfiler::~IntervalProfiler() = default;

void IntervalProfiler::profile(uint32_t from_leave, uint32_t to_enter, IntervalProfile& result,
                               bool list_waits) {
  result.time.clear();
  result.waits.clear();
  SingleOut out{result};
  result.waiting = profile_into(from_leave, to_enter, list_waits, out);
}

}  // namespace orrery::analyzer

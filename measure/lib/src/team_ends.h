#pragma once
// When each nested OpenMP team was done (ompt_tool.cpp): LLVM's runtime
// reports the end of a worker's implicit barrier at the end of a parallel
// region only when the worker is woken for the next region. For the
// outermost team the MPI thread's implicit task end tells when the team was
// done; for a nested team its master (thread 0 of the team, any thread)
// publishes its implicit task's end here, by team id, and the team's workers
// look it up. A small table: a slot a later team took over is told apart by
// the id (the worker then keeps the time it was woken).

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace orrery::measure {

class TeamEnds {
 public:
  /// The master of team `team` (id > 0) ended its implicit task at `time`.
  void publish(uint64_t team, uint64_t time) noexcept {
    Slot& slot = slots_[team % kSlots];
    slot.team.store(0, std::memory_order_relaxed);
    slot.time.store(time, std::memory_order_release);
    slot.team.store(team, std::memory_order_release);
  }
  /// When team `team` ended, 0 if not (or no longer) known.
  [[nodiscard]] uint64_t find(uint64_t team) const noexcept {
    const Slot& slot = slots_[team % kSlots];
    if (team == 0 || slot.team.load(std::memory_order_acquire) != team) return 0;
    const uint64_t time = slot.time.load(std::memory_order_acquire);
    return slot.team.load(std::memory_order_acquire) == team ? time : 0;
  }

 private:
  static constexpr std::size_t kSlots = 256;
  struct alignas(16) Slot {
    std::atomic<uint64_t> team{0};
    std::atomic<uint64_t> time{0};
  };
  Slot slots_[kSlots];
};

}  // namespace orrery::measure

#pragma once
// ORRERY_MODE=profile: instead of events, one call tree per rank in memory.
// Each node is a call path (a region under its parent path) with its visit
// count and inclusive time; exclusive time is derived when it is written.

#include <cstdint>
#include <vector>

namespace orrery::measure {

/// Per-rank call-path profile built from Enter/Leave.
class CallTree {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  /// One call path.
  struct Node {
    uint32_t region = 0;
    uint32_t parent = kNone;
    uint32_t first_child = kNone;
    uint32_t next_sibling = kNone;
    uint64_t visits = 0;
    uint64_t inclusive = 0;  ///< event-clock ticks
  };

  /// Enter `region` below the current call path at `time`.
  void enter(uint32_t region, uint64_t time) noexcept;
  /// Leave the current call path at `time` (ignored at the top).
  void leave(uint64_t time) noexcept;
  [[nodiscard]] const std::vector<Node>& nodes() const noexcept { return nodes_; }
  /// Call paths still open (nothing after a balanced run).
  [[nodiscard]] std::size_t depth() const noexcept { return open_.size(); }
  /// Exclusive time of a node: inclusive minus its children's inclusive.
  [[nodiscard]] uint64_t exclusive(uint32_t node) const noexcept;
  void clear() noexcept;

 private:
  uint32_t child(uint32_t parent, uint32_t region);

  struct Open {
    uint32_t node;
    uint64_t since;
  };
  std::vector<Node> nodes_;
  std::vector<uint32_t> roots_;  ///< first node of each root region
  std::vector<Open> open_;
};

}  // namespace orrery::measure

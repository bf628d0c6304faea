#pragma once
// ORRERY_MODE=profile: instead of events, one call tree per rank in memory.
// Each node is a call path (a region under its parent path) with its visit
// count, inclusive time and message/collective counts and bytes; exclusive
// time is derived when it is written.

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
    uint64_t sends = 0;      ///< point-to-point sends (blocking and posted)
    uint64_t receives = 0;   ///< completed point-to-point receives
    uint64_t collectives = 0;
    uint64_t bytes_sent = 0;
    uint64_t bytes_received = 0;
    uint64_t bytes_coll_out = 0;
    uint64_t bytes_coll_in = 0;
  };

  /// What a message or collective event adds to the current call path.
  enum class Traffic : uint8_t { kSend, kReceive, kCollective };

  /// Enter `region` below the current call path at `time`.
  void enter(uint32_t region, uint64_t time) noexcept;
  /// Leave the current call path at `time` (ignored at the top).
  void leave(uint64_t time) noexcept;
  /// Counts one message or collective at the current call path (ignored outside any).
  void add_traffic(Traffic kind, uint64_t bytes_out, uint64_t bytes_in) noexcept;
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

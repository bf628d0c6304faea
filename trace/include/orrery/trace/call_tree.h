#pragma once
// A rank's call tree, built while its events are read (TraceBuilder): every
// Enter names its call path from then on. Call paths are identified by
// (parent, region); the merge unifies them across ranks by the chain of
// region names, which needs every parent to have a smaller id than its children.

#include <cstdint>
#include <utility>
#include <vector>

#include "orrery/trace/ids.h"

namespace orrery::analyzer {

struct LocalTrace;

/// One call path: its parent (kNone for a root) and its region.
struct CallPathNode {
  uint32_t parent = kNone;
  uint32_t region = 0;
};

/// The call paths of one rank.
class CallTree {
 public:
  /// The child of `parent` (kNone: a root) for `region`, created if new.
  uint32_t child(uint32_t parent, uint32_t region);
  /// The child of `parent` (kNone: a root) for `region`; kNone if there is none.
  [[nodiscard]] uint32_t find(uint32_t parent, uint32_t region) const;
  /// Puts a new root of `region` above all current roots. It becomes call
  /// path 0 and every other call path's id grows by one.
  void enclose(uint32_t region);
  [[nodiscard]] const std::vector<CallPathNode>& nodes() const { return nodes_; }
  [[nodiscard]] std::size_t size() const { return nodes_.size(); }
  [[nodiscard]] uint32_t region(uint32_t callpath) const { return nodes_[callpath].region; }

 private:
  std::vector<CallPathNode> nodes_;
  /// Children per node: usually a handful, so a linear scan beats hashing.
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> children_;  // (region, child)
  std::vector<std::pair<uint32_t, uint32_t>> roots_;
};

/// Hands over the call tree the reader built (Enter `ref`s are call paths).
[[nodiscard]] CallTree build_call_tree(LocalTrace& trace);

}  // namespace orrery::analyzer

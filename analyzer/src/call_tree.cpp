#include "orrery/analyzer/call_tree.h"

namespace orrery::analyzer {

uint32_t CallTree::child(uint32_t parent, uint32_t region) {
  auto& children = parent == kNone ? roots_ : children_[parent];
  for (const auto& [child_region, child] : children) {
    if (child_region == region) return child;
  }
  const auto id = static_cast<uint32_t>(nodes_.size());
  nodes_.push_back(CallPathNode{parent, region});
  children_.emplace_back();
  // children_ may have moved: look the parent's list up again.
  (parent == kNone ? roots_ : children_[parent]).emplace_back(region, id);
  return id;
}

CallTree build_call_tree(LocalTrace& trace) {
  CallTree tree;
  std::vector<uint32_t> stack;
  // Most Enters repeat the previous child of the same parent; remember it to
  // skip the hash lookup on the hot path.
  uint32_t last_parent = kNone - 1, last_region = kNone, last_child = kNone;
  for (std::size_t i = 0; i < trace.events.size(); ++i) {
    Event& event = trace.events[i];
    if (event.kind == EventKind::kEnter) {
      const uint32_t parent = stack.empty() ? kNone : stack.back();
      uint32_t callpath;
      if (parent == last_parent && event.ref == last_region) {
        callpath = last_child;
      } else {
        callpath = tree.child(parent, event.ref);
        last_parent = parent;
        last_region = event.ref;
        last_child = callpath;
      }
      event.ref = callpath;
      stack.push_back(callpath);
    } else if (event.kind == EventKind::kLeave) {
      event.ref = stack.back();
      stack.pop_back();
    }
  }
  return tree;
}

}  // namespace orrery::analyzer

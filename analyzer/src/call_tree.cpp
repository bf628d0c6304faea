#include "orrery/analyzer/call_tree.h"

namespace orrery::analyzer {

uint32_t CallTree::child(uint32_t parent, uint32_t region) {
  const uint64_t key = (static_cast<uint64_t>(parent) << 32) | region;
  auto [it, inserted] = index_.try_emplace(key, static_cast<uint32_t>(nodes_.size()));
  if (inserted) nodes_.push_back(CallPathNode{parent, region});
  return it->second;
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

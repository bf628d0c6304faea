#include "orrery/trace/call_tree.h"

#include "orrery/trace/trace.h"

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

uint32_t CallTree::find(uint32_t parent, uint32_t region) const {
  if (parent != kNone && parent >= children_.size()) return kNone;
  for (const auto& [child_region, child] : parent == kNone ? roots_ : children_[parent]) {
    if (child_region == region) return child;
  }
  return kNone;
}

void CallTree::enclose(uint32_t region) {
  std::vector<CallPathNode> nodes;
  nodes.reserve(nodes_.size() + 1);
  nodes.push_back(CallPathNode{kNone, region});
  for (const CallPathNode& node : nodes_) {
    nodes.push_back(CallPathNode{node.parent == kNone ? 0 : node.parent + 1, node.region});
  }
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> children;
  children.reserve(children_.size() + 1);
  children.push_back(std::move(roots_));
  for (auto& list : children_) children.push_back(std::move(list));
  for (auto& list : children) {
    for (auto& entry : list) ++entry.second;
  }
  nodes_ = std::move(nodes);
  children_ = std::move(children);
  roots_ = {{region, 0U}};
}

CallTree build_call_tree(LocalTrace& trace) { return std::move(trace.calltree); }

}  // namespace orrery::analyzer

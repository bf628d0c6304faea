#include "call_tree.h"

namespace orrery::measure {

uint32_t CallTree::child(uint32_t parent, uint32_t region) {
  uint32_t* link = nullptr;
  if (parent == kNone) {
    for (uint32_t root : roots_) {
      if (nodes_[root].region == region) return root;
    }
  } else {
    link = &nodes_[parent].first_child;
    for (uint32_t n = *link; n != kNone; n = nodes_[n].next_sibling) {
      if (nodes_[n].region == region) return n;
    }
  }
  const auto id = static_cast<uint32_t>(nodes_.size());
  Node node;
  node.region = region;
  node.parent = parent;
  if (parent == kNone) {
    roots_.push_back(id);
  } else {
    node.next_sibling = nodes_[parent].first_child;
  }
  nodes_.push_back(node);
  if (parent != kNone) nodes_[parent].first_child = id;  // nodes_ may have moved: index again
  return id;
}

void CallTree::enter(uint32_t region, uint64_t time) noexcept {
  try {
    const uint32_t node = child(open_.empty() ? kNone : open_.back().node, region);
    ++nodes_[node].visits;
    open_.push_back({node, time});
  } catch (...) {
    // Out of memory: the visit is lost; keep the nesting consistent if possible.
    if (open_.size() < open_.capacity()) open_.push_back({kNone, time});
  }
}

void CallTree::leave(uint64_t time) noexcept {
  if (open_.empty()) return;
  const Open top = open_.back();
  open_.pop_back();
  if (top.node != kNone && time > top.since) nodes_[top.node].inclusive += time - top.since;
}

void CallTree::add_traffic(Traffic kind, uint64_t bytes_out, uint64_t bytes_in) noexcept {
  if (open_.empty() || open_.back().node == kNone) return;
  Node& node = nodes_[open_.back().node];
  switch (kind) {
    case Traffic::kSend:
      ++node.sends;
      node.bytes_sent += bytes_out;
      break;
    case Traffic::kReceive:
      ++node.receives;
      node.bytes_received += bytes_in;
      break;
    case Traffic::kCollective:
      ++node.collectives;
      node.bytes_coll_out += bytes_out;
      node.bytes_coll_in += bytes_in;
      break;
  }
}

uint64_t CallTree::exclusive(uint32_t node) const noexcept {
  uint64_t children = 0;
  for (uint32_t n = nodes_[node].first_child; n != kNone; n = nodes_[n].next_sibling) children += nodes_[n].inclusive;
  return nodes_[node].inclusive > children ? nodes_[node].inclusive - children : 0;
}

void CallTree::clear() noexcept {
  nodes_.clear();
  roots_.clear();
  open_.clear();
}

}  // namespace orrery::measure

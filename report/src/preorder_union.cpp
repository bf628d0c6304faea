#include "preorder_union.h"

namespace orrery::report {

std::size_t PreorderUnion::add(const std::string& key, std::optional<std::size_t> parent) {
  const auto [found, inserted] = index_.try_emplace(key, parents_.size());
  if (!inserted) {
    return found->second;
  }
  const std::size_t node = found->second;
  parents_.push_back(parent);
  children_.emplace_back();
  (parent ? children_[*parent] : roots_).push_back(node);
  return node;
}

void PreorderUnion::lay_out() {
  order_.clear();
  order_.reserve(parents_.size());
  row_of_node_.assign(parents_.size(), 0);
  // An explicit stack: call trees of recursive programs can be very deep.
  std::vector<std::size_t> stack(roots_.rbegin(), roots_.rend());
  while (!stack.empty()) {
    const std::size_t node = stack.back();
    stack.pop_back();
    row_of_node_[node] = order_.size();
    order_.push_back(node);
    const auto& children = children_[node];
    stack.insert(stack.end(), children.rbegin(), children.rend());
  }
}

int32_t PreorderUnion::parent_row(std::size_t row) const {
  const auto parent = parents_[order_[row]];
  return parent ? static_cast<int32_t>(row_of_node_[*parent]) : -1;
}

}  // namespace orrery::report

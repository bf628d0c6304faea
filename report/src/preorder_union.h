#pragma once
// Unites trees given node by node (a key and the node's parent), keeping the
// order in which children were first seen, and lays the result out in
// pre-order. Used for both the metric tree and the call tree.

#include <cstddef>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace orrery::report {

/// A tree built from keyed nodes of several inputs, laid out in pre-order.
class PreorderUnion {
 public:
  /// The node for `key`, created under `parent` (a node id) if it is new.
  std::size_t add(const std::string& key, std::optional<std::size_t> parent);

  /// Computes the layout; afterwards row_of(node) and parent_row(row) are valid.
  void lay_out();
  [[nodiscard]] std::size_t size() const { return parents_.size(); }
  [[nodiscard]] std::size_t row_of(std::size_t node) const { return row_of_node_[node]; }
  /// Node ids in pre-order.
  [[nodiscard]] const std::vector<std::size_t>& order() const { return order_; }
  /// Parent row of the node at `row`, -1 for a root.
  [[nodiscard]] int32_t parent_row(std::size_t row) const;

 private:
  std::unordered_map<std::string, std::size_t> index_;
  std::vector<std::optional<std::size_t>> parents_;
  std::vector<std::vector<std::size_t>> children_;
  std::vector<std::size_t> roots_;
  std::vector<std::size_t> order_;
  std::vector<std::size_t> row_of_node_;
};

}  // namespace orrery::report

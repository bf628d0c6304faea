// MessageMatching's additions for the delay analysis and the critical path
// (message_exchange.h): the local way back from a Route to this rank's
// operation, and exchanges of two values per message in one.

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "orrery/analyzer/message_exchange.h"

namespace orrery::analyzer {
namespace {

/// `layout` with every block twice as long (two values per message).
BlockLayout doubled(const BlockLayout& layout) {
  BlockLayout twice;
  for (std::size_t k = 0; k < layout.peers.size(); ++k) twice.add(layout.peers[k], 2 * layout.counts[k]);
  return twice;
}

void check_sizes(const char* what, std::size_t first, std::size_t second, std::size_t expected) {
  if (first != expected || second != expected) {
    throw std::invalid_argument(std::string("MessageMatching::") + what + ": " +
                                std::to_string(first) + " and " + std::to_string(second) +
                                " values for " + std::to_string(expected) + " operations");
  }
}

/// Two values per message along one direction of the routes: each of this
/// rank's operations with an outgoing position sends its pair there, and each
/// operation with an incoming position gets the pair found there (kNoValue
/// for the others). The inputs are freed once packed.
std::pair<std::vector<int64_t>, std::vector<int64_t>> exchange_pairs(
    std::vector<int64_t> first, std::vector<int64_t> second, const std::vector<uint32_t>& out_position,
    const BlockLayout& out, const std::vector<uint32_t>& in_position, const BlockLayout& in,
    bool fill_unwritten, MPI_Comm world) {
  auto outgoing = std::make_unique_for_overwrite<int64_t[]>(2 * out.total);
  if (fill_unwritten) std::fill_n(outgoing.get(), 2 * out.total, kNoValue);
  for (std::size_t i = 0; i < first.size(); ++i) {
    const uint32_t position = out_position[i];
    if (position == kNone) continue;
    outgoing[2 * std::size_t{position}] = first[i];
    outgoing[2 * std::size_t{position} + 1] = second[i];
  }
  std::vector<int64_t>().swap(first);
  std::vector<int64_t>().swap(second);
  auto incoming = std::make_unique_for_overwrite<int64_t[]>(2 * in.total);
  exchange_blocks(outgoing.get(), doubled(out), incoming.get(), doubled(in), MPI_INT64_T, world);
  outgoing.reset();
  std::pair<std::vector<int64_t>, std::vector<int64_t>> result;
  result.first.resize(in_position.size());
  result.second.resize(in_position.size());
  for (std::size_t j = 0; j < in_position.size(); ++j) {
    const uint32_t position = in_position[j];
    result.first[j] = position == kNone ? kNoValue : incoming[2 * std::size_t{position}];
    result.second[j] = position == kNone ? kNoValue : incoming[2 * std::size_t{position} + 1];
  }
  return result;
}

}  // namespace

std::size_t MessageMatching::RouteIndex::block_of(const BlockLayout& layout, uint32_t peer) {
  const auto it = std::lower_bound(layout.peers.begin(), layout.peers.end(), peer);
  if (it == layout.peers.end() || *it != peer) return layout.peers.size();
  return static_cast<std::size_t>(it - layout.peers.begin());
}

MessageMatching::Route MessageMatching::RouteIndex::route_at(const BlockLayout& layout,
                                                            uint32_t position, std::size_t& last) {
  const auto inside = [&](std::size_t k) {
    return k < layout.peers.size() && layout.displs[k] <= position &&
           position < layout.displs[k] + layout.counts[k];
  };
  if (!inside(last)) {
    const auto after = std::upper_bound(layout.displs.begin(), layout.displs.end(),
                                        static_cast<std::size_t>(position));
    last = static_cast<std::size_t>(after - layout.displs.begin()) - 1;
  }
  return {layout.peers[last], static_cast<uint32_t>(position - layout.displs[last])};
}

MessageMatching::Route MessageMatching::RouteIndex::send_route(std::size_t i) const {
  const MessageMatching& m = *matching_;
  if (i >= m.send_position_.size() || m.send_position_[i] == kNone || m.send_matched_[i] == 0) {
    return {};
  }
  return route_at(to_, m.send_position_[i], route_to_);
}

MessageMatching::Route MessageMatching::RouteIndex::recv_route(std::size_t j) const {
  const MessageMatching& m = *matching_;
  if (j >= m.recv_position_.size() || m.recv_position_[j] == kNone) return {};
  return route_at(from_, m.recv_position_[j], route_from_);
}

MessageMatching::RouteIndex MessageMatching::route_index() const {
  RouteIndex index;
  index.matching_ = this;
  index.to_ = to_;
  index.from_ = from_;
  // In place (position i is operation i, one partner say): no table.
  // Otherwise the table inverts the operations' positions.
  const auto invert = [](bool in_place, const std::vector<uint32_t>& position, std::size_t total,
                         uint32_t& in_place_count, std::vector<uint32_t>& of_position) {
    if (in_place) {
      in_place_count = static_cast<uint32_t>(position.size());
      return;
    }
    of_position.assign(total, kNone);
    for (std::size_t i = 0; i < position.size(); ++i) {
      if (position[i] != kNone) of_position[position[i]] = static_cast<uint32_t>(i);
    }
  };
  invert(sends_in_place_, send_position_, to_.total, index.sends_in_place_, index.send_of_position_);
  invert(recvs_in_place_, recv_position_, from_.total, index.recvs_in_place_, index.recv_of_position_);
  return index;
}

std::pair<std::vector<int64_t>, std::vector<int64_t>> MessageMatching::to_receivers(
    std::vector<int64_t> first, std::vector<int64_t> second, MPI_Comm world) const {
  check_sizes("to_receivers", first.size(), second.size(), send_position_.size());
  // Every outgoing position belongs to one send: all of them are written.
  return exchange_pairs(std::move(first), std::move(second), send_position_, to_, recv_position_,
                        from_, /*fill_unwritten=*/false, world);
}

std::pair<std::vector<int64_t>, std::vector<int64_t>> MessageMatching::to_senders(
    std::vector<int64_t> first, std::vector<int64_t> second, MPI_Comm world) const {
  check_sizes("to_senders", first.size(), second.size(), recv_position_.size());
  // A message that arrived but was never received has a position and no
  // receive to fill it: it goes back as kNoValue.
  return exchange_pairs(std::move(first), std::move(second), recv_position_, from_, send_position_,
                        to_, /*fill_unwritten=*/true, world);
}

}  // namespace orrery::analyzer

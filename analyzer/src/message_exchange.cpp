#include "orrery/analyzer/message_exchange.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <type_traits>
#include "message_numbering.h"
#include "vmpi.h"

namespace orrery::analyzer {
namespace {

using message_numbering::ChannelNumbers;
using message_numbering::CommResolver;

uint64_t channel(uint32_t comm, uint32_t tag) { return (static_cast<uint64_t>(comm) << 32) | tag; }

/// One source's received slots bucketed by channel, in order, for the
/// receives to take channel by channel in posting order (when the slots and
/// the receives do not come in the same channel order).
class SlotsByChannel {
 public:
  /// Buckets the `count` slots whose channels start at `channels`; the
  /// first one is flat position `first`.
  void bucket(const uint64_t* channels, std::size_t count, std::size_t first) {
    numbers_.clear();
    slot_channel_.resize(count);
    for (std::size_t q = 0; q < count; ++q) slot_channel_[q] = numbers_.add(channels[q]);
    starts_.assign(numbers_.size() + 1, 0);
    for (std::size_t q = 0; q < count; ++q) ++starts_[slot_channel_[q] + 1];
    for (std::size_t c = 1; c < starts_.size(); ++c) starts_[c] += starts_[c - 1];
    taken_.assign(numbers_.size(), 0);
    slots_.resize(count);
    for (std::size_t q = 0; q < count; ++q) {
      const uint32_t c = slot_channel_[q];
      slots_[starts_[c] + taken_[c]++] = static_cast<uint32_t>(first + q);
    }
    std::fill(taken_.begin(), taken_.end(), 0U);
  }

  /// The next untaken slot on `channel`; kNone if none is left.
  uint32_t take(uint64_t channel) {
    const uint32_t c = numbers_.find(channel);
    if (c == kNone || starts_[c] + taken_[c] == starts_[c + 1]) return kNone;
    return slots_[starts_[c] + taken_[c]++];
  }

 private:
  ChannelNumbers numbers_;
  std::vector<uint32_t> slot_channel_, slots_, starts_, taken_;
};

/// The peers of `numbers` (world ranks, numbered in order of first
/// appearance) in increasing rank order, as (rank, number) pairs.
std::vector<std::pair<uint32_t, uint32_t>> by_rank(const ChannelNumbers& numbers) {
  std::vector<std::pair<uint32_t, uint32_t>> peers(numbers.size());
  for (std::size_t c = 0; c < numbers.size(); ++c) {
    peers[c] = {static_cast<uint32_t>(numbers.key(c)), static_cast<uint32_t>(c)};
  }
  std::sort(peers.begin(), peers.end());
  return peers;
}

}  // namespace

MessageMatching MessageMatching::build(const LocalTrace& trace, const Definitions& definitions,
                                       const Communicators& comms, MPI_Comm world,
                                       std::string& error, bool tolerate_truncation) {
  error.clear();
  int world_size = 0, my_rank = 0;
  vmpi::Comm_size(world, &world_size);
  vmpi::Comm_rank(world, &my_rank);
  const auto n = static_cast<std::size_t>(world_size);
  const uint32_t self = trace.rank;

  MessageMatching matching;
  matching.send_position_.assign(trace.sends.size(), kNone);
  matching.send_matched_.assign(trace.sends.size(), 0);
  matching.recv_position_.assign(trace.recvs.size(), kNone);

  // Validation and, on the way, each send's destination and each receive's
  // source as world ranks, numbered densely per side (only the partners,
  // never an array over all ranks).
  CommResolver resolver(definitions, comms);
  std::string local_error;
  const auto unknown = [&](const MessageOp& op, const char* what) {
    if (!local_error.empty()) return;
    local_error = "rank " + std::to_string(trace.rank) + " has a " + what + " on communicator " +
                  std::to_string(op.comm) + " with peer " + std::to_string(op.peer) +
                  " that the definitions do not know";
  };
  // A message's peer number depends only on (communicator, peer): runs of
  // messages to the same peer reuse the previous one's number. Each
  // numbered message's channel is noted on the way (`channel_of`), so that
  // the passes below read 8 bytes per message instead of its 40-byte entry
  // again (those passes were bound by memory, not by instructions).
  ChannelNumbers destinations, sources;
  std::vector<uint64_t> sent_to, received_from;  // per destination / source number
  auto send_channels = std::make_unique_for_overwrite<uint64_t[]>(trace.sends.size());
  auto recv_channels = std::make_unique_for_overwrite<uint64_t[]>(trace.recvs.size());
  const auto number_peers = [&]<bool kIsSend>(std::bool_constant<kIsSend>, const MessageTable& table,
                                             const char* what, ChannelNumbers& numbers, std::vector<uint64_t>& per_number,
                                std::vector<uint32_t>& number_of, uint64_t* channel_of) {
    // Locals, not captures: the loop keeps them in registers. A run of
    // messages with the same number is counted once, at its end. Returns
    // whether the table is grouped already: every message numbered, each
    // number in one run, in increasing order (then the grouping passes below
    // are the identity).
    uint64_t last_route = ~uint64_t{0};
    bool grouped = true;
    std::size_t numbered_messages = 0;
    uint32_t last_number = kNone;
    uint64_t run = 0;
    uint32_t* const numbered = number_of.data();
    table.for_each_chunk([&](std::size_t first, const MessageOp* ops, std::size_t count) {
      uint32_t* const chunk_numbers = numbered + first;
      uint64_t* const chunk_channels = channel_of + first;
      for (std::size_t k = 0; k < count; ++k) {
        const MessageOp& op = ops[k];
        if (op.cancelled || (!kIsSend && op.peer == kNone)) continue;
        const uint64_t route = channel(op.comm, op.peer);
        if (route != last_route || last_number == kNone) [[unlikely]] {
          const uint32_t peer = resolver.world_rank(op.comm, op.peer, self);
          if (peer >= n) {
            unknown(op, what);
            continue;
          }
          const uint32_t number = numbers.add(peer);
          if (last_number != kNone) {
            per_number[last_number] += run;
            numbered_messages += run;
            grouped = grouped && number >= last_number;
          }
          run = 0;
          last_route = route;
          last_number = number;
          if (last_number == per_number.size()) per_number.push_back(0);
        }
        ++run;
        chunk_numbers[k] = last_number;
        chunk_channels[k] = channel(op.comm, op.tag);
      }
    });
    if (last_number != kNone) {
      per_number[last_number] += run;
      numbered_messages += run;
    }
    return grouped && numbered_messages == table.size();
  };
  // The destination for now, the position below.
  const bool sends_grouped = number_peers(std::true_type{}, trace.sends, "send", destinations, sent_to,
                                          matching.send_position_, send_channels.get());
  std::vector<uint32_t> source(trace.recvs.size(), kNone);
  const bool recvs_grouped =
      number_peers(std::false_type{}, trace.recvs, "receive", sources, received_from, source, recv_channels.get());
  const std::vector<std::pair<uint32_t, uint32_t>> to_peers = by_rank(destinations);
  const std::vector<std::pair<uint32_t, uint32_t>> from_peers = by_rank(sources);
  {
    std::vector<uint32_t> peers;
    std::vector<uint64_t> counts;
    for (const auto& [peer, number] : to_peers) {
      peers.push_back(peer);
      counts.push_back(sent_to[number]);
    }
    // Who sent how many messages to this rank, sorted by rank.
    const std::vector<std::pair<uint32_t, uint64_t>> they_sent =
        discover_senders(peers, counts, world);
    uint64_t receiving = 0;
    for (const auto& [peer, count] : they_sent) {
      matching.from_.add(peer, static_cast<std::size_t>(count));
      receiving += count;
    }
    // Both sides must agree per pair of ranks: walk the senders and this
    // rank's own sources together in rank order.
    std::size_t a = 0, b = 0;
    while (local_error.empty() && !tolerate_truncation &&
           (a < they_sent.size() || b < from_peers.size())) {
      const uint32_t peer = std::min(a < they_sent.size() ? they_sent[a].first : kNone,
                                     b < from_peers.size() ? from_peers[b].first : kNone);
      const uint64_t sent = a < they_sent.size() && they_sent[a].first == peer
                                ? they_sent[a++].second
                                : 0;
      const uint64_t received = b < from_peers.size() && from_peers[b].first == peer
                                    ? received_from[from_peers[b++].second]
                                    : 0;
      if (sent != received) {
        local_error = "the traces disagree: rank " + std::to_string(peer) + " sent " +
                      std::to_string(sent) + " messages to rank " + std::to_string(trace.rank) +
                      ", which received " + std::to_string(received) +
                      " (a truncated or inconsistent trace)";
      }
    }
    if (local_error.empty() && receiving >= kNone) {
      local_error = "rank " + std::to_string(trace.rank) + " receives " +
                    std::to_string(receiving) + " messages, more than the " +
                    std::to_string(kNone - 1) + " one analysis rank can index";
    }
  }

  // Agree: the first failing rank's text goes to every rank, and all return
  // a matching that carries nothing.
  const int mine = local_error.empty() ? world_size : my_rank;
  int first = world_size;
  vmpi::Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, world);
  if (first != world_size) {
    int length = static_cast<int>(local_error.size());
    vmpi::Bcast(&length, 1, MPI_INT, first, world);
    local_error.resize(static_cast<std::size_t>(length));
    vmpi::Bcast(local_error.data(), length, MPI_CHAR, first, world);
    error = local_error;
    std::fill(matching.send_position_.begin(), matching.send_position_.end(), kNone);
    matching.to_ = BlockLayout{};
    matching.from_ = BlockLayout{};
    return matching;
  }

  // Block layout: destinations in rank order, each in posting order.
  std::vector<std::size_t> fill(to_peers.size());
  for (const auto& [peer, number] : to_peers) {
    fill[number] = matching.to_.total;
    matching.to_.add(peer, static_cast<std::size_t>(sent_to[number]));
  }

  // The channel of every message travels once.
  // Every position is written below, every incoming slot by the exchange:
  // neither needs zeroing first.
  // Sends grouped by destination in rank order already (one destination,
  // say): send i is at position i, its channel where it is.
  bool sends_in_place = sends_grouped;
  for (std::size_t k = 0; k < to_peers.size(); ++k) sends_in_place = sends_in_place && to_peers[k].second == k;
  std::unique_ptr<uint64_t[]> outgoing;
  if (sends_in_place) {
    std::iota(matching.send_position_.begin(), matching.send_position_.end(), 0U);
    outgoing = std::move(send_channels);
    matching.sends_in_place_ = true;
  } else {
    outgoing = std::make_unique_for_overwrite<uint64_t[]>(matching.to_.total);
    for (std::size_t i = 0; i < trace.sends.size(); ++i) {
      const uint32_t number = matching.send_position_[i];
      if (number == kNone) continue;
      const auto position = static_cast<uint32_t>(fill[number]++);
      matching.send_position_[i] = position;
      outgoing[position] = send_channels[i];
    }
  }
  send_channels.reset();
  auto incoming = std::make_unique_for_overwrite<uint64_t[]>(matching.from_.total);
  exchange_blocks(outgoing.get(), matching.to_, incoming.get(), matching.from_, MPI_UINT64_T,
                  world);
  outgoing.reset();

  // Per source, the received slots pair with this rank's receives channel by
  // channel in posting order; what is left over on a channel stays
  // unmatched. The receives are grouped by source (a counting sort keeps
  // their order), each with its channel. Usually a source's slots and
  // receives come in the same channel order and pair one to one; otherwise
  // the source's channels get dense numbers and the slots are bucketed by
  // channel, in order. Linear in the messages, no sorting. (The counts agree
  // per source unless truncation is tolerated: this rank's receives get
  // their own layout.)
  std::vector<std::size_t> mine_displs(sources.size() + 1, 0);
  for (std::size_t c = 0; c < sources.size(); ++c) {
    mine_displs[c + 1] = mine_displs[c] + received_from[c];
  }
  std::unique_ptr<uint32_t[]> receives;  // (grouped already: receive b is receive b)
  std::unique_ptr<uint64_t[]> receive_channels;
  if (recvs_grouped) {
    receive_channels = std::move(recv_channels);
  } else {
    receives = std::make_unique_for_overwrite<uint32_t[]>(mine_displs.back());
    receive_channels = std::make_unique_for_overwrite<uint64_t[]>(mine_displs.back());
    std::vector<std::size_t> next(mine_displs.begin(), mine_displs.end() - 1);
    for (std::size_t j = 0; j < trace.recvs.size(); ++j) {
      if (source[j] == kNone) continue;
      const std::size_t b = next[source[j]]++;
      receives[b] = static_cast<uint32_t>(j);
      receive_channels[b] = recv_channels[j];
    }
  }
  recv_channels.reset();
  source = std::vector<uint32_t>();
  matching.known_recvs_ = mine_displs.back();
  std::vector<uint8_t> slot_matched(matching.from_.total, 0);
  SlotsByChannel by_channel;
  bool recvs_in_place = recvs_grouped && matching.from_.total == trace.recvs.size();
  for (std::size_t k = 0; k < matching.from_.peers.size(); ++k) {
    const std::size_t begin = matching.from_.displs[k];
    const std::size_t count = matching.from_.counts[k];
    const uint32_t mine_number = sources.find(matching.from_.peers[k]);
    if (count == 0 || mine_number == kNone) {
      recvs_in_place = recvs_in_place && count == 0;
      continue;
    }
    const std::size_t mine_begin = mine_displs[mine_number];
    const std::size_t mine_count = mine_displs[mine_number + 1] - mine_begin;
    const std::size_t paired = std::min(count, mine_count);
    const uint64_t* mine_channels = receive_channels.get() + mine_begin;
    const bool in_order =
        std::equal(mine_channels, mine_channels + paired, incoming.get() + begin);
    if (!in_order) by_channel.bucket(incoming.get() + begin, count, begin);
    recvs_in_place = recvs_in_place && in_order && mine_begin == begin && mine_count == count;
    if (in_order && recvs_grouped) {  // receive mine_begin + b takes slot begin + b
      std::iota(matching.recv_position_.begin() + static_cast<std::ptrdiff_t>(mine_begin),
                matching.recv_position_.begin() + static_cast<std::ptrdiff_t>(mine_begin + paired),
                static_cast<uint32_t>(begin));
      std::fill_n(slot_matched.begin() + static_cast<std::ptrdiff_t>(begin), paired, uint8_t{1});
      matching.matched_recvs_ += paired;
      continue;
    }
    for (std::size_t b = 0; b < (in_order ? paired : mine_count); ++b) {
      const uint32_t slot =
          in_order ? static_cast<uint32_t>(begin + b)
                   : by_channel.take(receive_channels[mine_begin + b]);
      if (slot == kNone) continue;
      matching.recv_position_[recvs_grouped ? mine_begin + b : receives[mine_begin + b]] = slot;
      slot_matched[slot] = 1;
      ++matching.matched_recvs_;
    }
  }
  incoming.reset();
  matching.recvs_in_place_ = recvs_in_place && matching.matched_recvs_ == trace.recvs.size();

  // Tell the senders which of their messages found a receive.
  auto sent_matched = std::make_unique_for_overwrite<uint8_t[]>(matching.to_.total);
  exchange_blocks(slot_matched.data(), matching.from_, sent_matched.get(), matching.to_,
                  MPI_UINT8_T, world);
  matching.known_sends_ = matching.to_.total;
  if (matching.sends_in_place_) {  // send i's flag is at position i (0 or 1)
    std::copy_n(sent_matched.get(), trace.sends.size(), matching.send_matched_.begin());
    matching.matched_sends_ = static_cast<std::size_t>(
        std::count(matching.send_matched_.begin(), matching.send_matched_.end(), uint8_t{1}));
    return matching;
  }
  for (std::size_t i = 0; i < trace.sends.size(); ++i) {
    const uint32_t position = matching.send_position_[i];
    if (position != kNone && sent_matched[position] != 0) {
      matching.send_matched_[i] = 1;
      ++matching.matched_sends_;
    }
  }
  return matching;
}

std::vector<int64_t> MessageMatching::to_receivers(const std::vector<int64_t>& per_send,
                                                   MPI_Comm world) const {
  if (per_send.size() != send_position_.size()) {
    throw std::invalid_argument("MessageMatching::to_receivers: " +
                                std::to_string(per_send.size()) + " values for " +
                                std::to_string(send_position_.size()) + " sends");
  }
  // Every position is some send's, every incoming slot written by the
  // exchange: neither needs zeroing first.
  std::unique_ptr<int64_t[]> outgoing;
  if (!sends_in_place_) {
    outgoing = std::make_unique_for_overwrite<int64_t[]>(to_.total);
    for (std::size_t i = 0; i < per_send.size(); ++i) {
      const uint32_t position = send_position_[i];
      if (position != kNone) outgoing[position] = per_send[i];
    }
  }
  const int64_t* sent = sends_in_place_ ? per_send.data() : outgoing.get();
  std::vector<int64_t> result(recv_position_.size());
  if (recvs_in_place_) {
    exchange_blocks(sent, to_, result.data(), from_, MPI_INT64_T, world);
    return result;
  }
  auto incoming = std::make_unique_for_overwrite<int64_t[]>(from_.total);
  exchange_blocks(sent, to_, incoming.get(), from_, MPI_INT64_T, world);
  for (std::size_t j = 0; j < result.size(); ++j) {
    const uint32_t position = recv_position_[j];
    result[j] = position == kNone ? kNoValue : incoming[position];
  }
  return result;
}

std::vector<int64_t> MessageMatching::to_senders(const std::vector<int64_t>& per_recv,
                                                 MPI_Comm world) const {
  if (per_recv.size() != recv_position_.size()) {
    throw std::invalid_argument("MessageMatching::to_senders: " +
                                std::to_string(per_recv.size()) + " values for " +
                                std::to_string(recv_position_.size()) + " receives");
  }
  std::vector<int64_t> outgoing;
  if (!recvs_in_place_) {  // (in place, every slot is some receive's)
    outgoing.assign(from_.total, kNoValue);
    for (std::size_t j = 0; j < per_recv.size(); ++j) {
      const uint32_t position = recv_position_[j];
      if (position != kNone) outgoing[position] = per_recv[j];
    }
  }
  const int64_t* sent = recvs_in_place_ ? per_recv.data() : outgoing.data();
  std::vector<int64_t> result(send_position_.size());
  if (sends_in_place_) {
    exchange_blocks(sent, from_, result.data(), to_, MPI_INT64_T, world);
    return result;
  }
  auto incoming = std::make_unique_for_overwrite<int64_t[]>(to_.total);
  exchange_blocks(sent, from_, incoming.get(), to_, MPI_INT64_T, world);
  for (std::size_t i = 0; i < result.size(); ++i) {
    const uint32_t position = send_position_[i];
    result[i] = position == kNone ? kNoValue : incoming[position];
  }
  return result;
}

namespace {

/// The block of `layout` holding flat position `position`, and the position within it.
MessageMatching::Route route_in(const BlockLayout& layout, uint32_t position) {
  const auto block = std::upper_bound(layout.displs.begin(), layout.displs.end(),
                                      static_cast<std::size_t>(position)) -
                     layout.displs.begin() - 1;
  const auto k = static_cast<std::size_t>(block);
  return {layout.peers[k], static_cast<uint32_t>(position - layout.displs[k])};
}

}  // namespace

MessageMatching::Route MessageMatching::send_route(std::size_t i) const {
  if (i >= send_position_.size() || send_position_[i] == kNone || send_matched_[i] == 0) return {};
  return route_in(to_, send_position_[i]);
}

MessageMatching::Route MessageMatching::recv_route(std::size_t j) const {
  if (j >= recv_position_.size() || recv_position_[j] == kNone) return {};
  return route_in(from_, recv_position_[j]);
}

}  // namespace orrery::analyzer

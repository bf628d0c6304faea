#include "orrery/analyzer/message_exchange.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <unordered_map>
#include "vmpi.h"

namespace orrery::analyzer {
namespace {

uint64_t channel(uint32_t comm, uint32_t tag) { return (static_cast<uint64_t>(comm) << 32) | tag; }

}  // namespace

namespace {

/// A communicator as the matching needs it, resolved once instead of a
/// std::map lookup (Definitions::world_rank) and a hash lookup
/// (Communicators::get) per message.
struct ResolvedComm {
  const uint32_t* members = nullptr;
  uint32_t size = 0;
  bool is_self = false;
  bool usable = false;  ///< defined, and this rank holds an MPI communicator for it
};

/// Communicator id → ResolvedComm: a vector indexed by id when the ids are
/// dense (the usual case), otherwise the definitions' map behind a
/// one-entry cache (messages come in runs on the same communicator).
class CommResolver {
 public:
  CommResolver(const Definitions& definitions, const Communicators& comms)
      : definitions_(definitions), comms_(comms) {
    if (definitions.comms.empty()) return;
    const uint64_t highest = definitions.comms.rbegin()->first;
    if (highest < 4 * definitions.comms.size() + 1024) {
      dense_.resize(static_cast<std::size_t>(highest) + 1);
      for (const auto& [id, def] : definitions.comms) dense_[id] = resolve(id, def);
      use_dense_ = true;
    }
  }

  const ResolvedComm& operator[](uint32_t id) {
    if (use_dense_) return id < dense_.size() ? dense_[id] : unknown_;
    if (id != cached_id_) {
      auto it = definitions_.comms.find(id);
      cached_ = it == definitions_.comms.end() ? ResolvedComm{} : resolve(id, it->second);
      cached_id_ = id;
    }
    return cached_;
  }

  /// World rank of `peer` of `id` seen from `self`; kNone if the definitions
  /// do not know it or this rank cannot take part in the communicator.
  uint32_t world_rank(uint32_t id, uint32_t peer, uint32_t self) {
    const ResolvedComm& comm = (*this)[id];
    if (!comm.usable) return kNone;
    if (comm.is_self) return peer == 0 ? self : kNone;
    return peer < comm.size ? comm.members[peer] : kNone;
  }

 private:
  ResolvedComm resolve(uint32_t id, const CommDef& def) const {
    ResolvedComm comm;
    comm.members = def.members.data();
    comm.size = static_cast<uint32_t>(std::min<std::size_t>(def.members.size(), kNone));
    comm.is_self = def.is_self;
    comm.usable = comms_.get(id) != MPI_COMM_NULL;
    return comm;
  }

  const Definitions& definitions_;
  const Communicators& comms_;
  std::vector<ResolvedComm> dense_;
  bool use_dense_ = false;
  ResolvedComm unknown_;
  uint32_t cached_id_ = kNone;
  ResolvedComm cached_;
};

/// Dense numbers 0, 1, ... for the channels of one peer, in order of first
/// appearance. Most peers use a handful of channels: a short list scanned
/// linearly, a hash map only beyond that, and the last hit remembered.
class ChannelNumbers {
 public:
  void clear() {
    keys_.clear();
    map_.clear();
    last_key_ = ~uint64_t{0};
    last_number_ = kNone;
  }
  [[nodiscard]] std::size_t size() const { return keys_.size(); }
  [[nodiscard]] uint64_t key(std::size_t number) const { return keys_[number]; }

  /// The number of `key`; kNone if it has none.
  uint32_t find(uint64_t key) {
    if (key == last_key_ && last_number_ != kNone) return last_number_;
    uint32_t number = kNone;
    if (keys_.size() <= kLinear) {
      for (std::size_t c = 0; c < keys_.size(); ++c) {
        if (keys_[c] == key) {
          number = static_cast<uint32_t>(c);
          break;
        }
      }
    } else if (auto it = map_.find(key); it != map_.end()) {
      number = it->second;
    }
    last_key_ = key;
    last_number_ = number;
    return number;
  }

  /// The number of `key`, given it one if new.
  uint32_t add(uint64_t key) {
    uint32_t number = find(key);
    if (number != kNone) return number;
    number = static_cast<uint32_t>(keys_.size());
    keys_.push_back(key);
    if (keys_.size() > kLinear) {
      if (map_.empty()) {
        for (std::size_t c = 0; c < keys_.size(); ++c) {
          map_.emplace(keys_[c], static_cast<uint32_t>(c));
        }
      } else {
        map_.emplace(key, number);
      }
    }
    last_key_ = key;
    last_number_ = number;
    return number;
  }

 private:
  static constexpr std::size_t kLinear = 8;
  std::vector<uint64_t> keys_;
  std::unordered_map<uint64_t, uint32_t> map_;
  uint64_t last_key_ = ~uint64_t{0};
  uint32_t last_number_ = kNone;
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
  ChannelNumbers destinations, sources;
  std::vector<uint64_t> sent_to, received_from;  // per destination / source number
  for (std::size_t i = 0; i < trace.sends.size(); ++i) {
    const MessageOp& op = trace.sends[i];
    if (op.cancelled) continue;
    const uint32_t peer = resolver.world_rank(op.comm, op.peer, self);
    if (peer >= n) {
      unknown(op, "send");
      continue;
    }
    const uint32_t number = destinations.add(peer);
    if (number == sent_to.size()) sent_to.push_back(0);
    ++sent_to[number];
    matching.send_position_[i] = number;  // the destination for now, the position below
  }
  std::vector<uint32_t> source(trace.recvs.size(), kNone);
  for (std::size_t j = 0; j < trace.recvs.size(); ++j) {
    const MessageOp& op = trace.recvs[j];
    if (op.cancelled || op.peer == kNone) continue;
    const uint32_t peer = resolver.world_rank(op.comm, op.peer, self);
    if (peer >= n) {
      unknown(op, "receive");
      continue;
    }
    const uint32_t number = sources.add(peer);
    if (number == received_from.size()) received_from.push_back(0);
    ++received_from[number];
    source[j] = number;
  }
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
  std::vector<uint64_t> outgoing(matching.to_.total);
  for (std::size_t i = 0; i < trace.sends.size(); ++i) {
    const uint32_t number = matching.send_position_[i];
    if (number == kNone) continue;
    const auto position = static_cast<uint32_t>(fill[number]++);
    matching.send_position_[i] = position;
    outgoing[position] = channel(trace.sends[i].comm, trace.sends[i].tag);
  }
  std::vector<uint64_t> incoming(matching.from_.total);
  exchange_blocks(outgoing.data(), matching.to_, incoming.data(), matching.from_, MPI_UINT64_T,
                  world);
  outgoing = std::vector<uint64_t>();

  // Per source, the received slots pair with this rank's receives channel by
  // channel in posting order; what is left over on a channel stays
  // unmatched. The receives are grouped by source (a counting sort keeps
  // their order); per source the channels get dense numbers and the slots
  // are bucketed by channel, in order. Linear in the messages, no sorting.
  // (The counts agree per source unless truncation is tolerated: this
  // rank's receives get their own layout.)
  std::vector<std::size_t> mine_displs(sources.size() + 1, 0);
  for (std::size_t c = 0; c < sources.size(); ++c) {
    mine_displs[c + 1] = mine_displs[c] + received_from[c];
  }
  std::vector<uint32_t> receives(mine_displs.back());
  {
    std::vector<std::size_t> next(mine_displs.begin(), mine_displs.end() - 1);
    for (std::size_t j = 0; j < trace.recvs.size(); ++j) {
      if (source[j] != kNone) receives[next[source[j]]++] = static_cast<uint32_t>(j);
    }
  }
  matching.known_recvs_ = receives.size();
  std::vector<uint8_t> slot_matched(matching.from_.total, 0);
  ChannelNumbers numbers;
  std::vector<uint32_t> slot_channel, by_channel, starts, taken;
  for (std::size_t k = 0; k < matching.from_.peers.size(); ++k) {
    const std::size_t begin = matching.from_.displs[k];
    const std::size_t count = matching.from_.counts[k];
    const uint32_t mine_number = sources.find(matching.from_.peers[k]);
    if (count == 0 || mine_number == kNone) continue;
    numbers.clear();
    slot_channel.resize(count);
    for (std::size_t q = 0; q < count; ++q) slot_channel[q] = numbers.add(incoming[begin + q]);
    starts.assign(numbers.size() + 1, 0);
    for (std::size_t q = 0; q < count; ++q) ++starts[slot_channel[q] + 1];
    for (std::size_t c = 1; c < starts.size(); ++c) starts[c] += starts[c - 1];
    taken.assign(numbers.size(), 0);
    by_channel.resize(count);
    for (std::size_t q = 0; q < count; ++q) {
      const uint32_t c = slot_channel[q];
      by_channel[starts[c] + taken[c]++] = static_cast<uint32_t>(begin + q);
    }
    std::fill(taken.begin(), taken.end(), 0U);
    for (std::size_t b = mine_displs[mine_number]; b < mine_displs[mine_number + 1]; ++b) {
      const uint32_t j = receives[b];
      const uint32_t c = numbers.find(channel(trace.recvs[j].comm, trace.recvs[j].tag));
      if (c == kNone || starts[c] + taken[c] == starts[c + 1]) continue;
      const uint32_t slot = by_channel[starts[c] + taken[c]++];
      matching.recv_position_[j] = slot;
      slot_matched[slot] = 1;
      ++matching.matched_recvs_;
    }
  }
  incoming = std::vector<uint64_t>();

  // Tell the senders which of their messages found a receive.
  std::vector<uint8_t> sent_matched(matching.to_.total);
  exchange_blocks(slot_matched.data(), matching.from_, sent_matched.data(), matching.to_,
                  MPI_UINT8_T, world);
  matching.known_sends_ = matching.to_.total;
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
  std::vector<int64_t> outgoing(to_.total);
  for (std::size_t i = 0; i < per_send.size(); ++i) {
    const uint32_t position = send_position_[i];
    if (position != kNone) outgoing[position] = per_send[i];
  }
  std::vector<int64_t> incoming(from_.total);
  exchange_blocks(outgoing.data(), to_, incoming.data(), from_, MPI_INT64_T, world);
  std::vector<int64_t> result(recv_position_.size());
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
  std::vector<int64_t> outgoing(from_.total, kNoValue);
  for (std::size_t j = 0; j < per_recv.size(); ++j) {
    const uint32_t position = recv_position_[j];
    if (position != kNone) outgoing[position] = per_recv[j];
  }
  std::vector<int64_t> incoming(to_.total);
  exchange_blocks(outgoing.data(), from_, incoming.data(), to_, MPI_INT64_T, world);
  std::vector<int64_t> result(send_position_.size());
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

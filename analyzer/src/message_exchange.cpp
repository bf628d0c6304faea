#include "orrery/analyzer/message_exchange.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <stdexcept>
#include <unordered_map>

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

/// Prefix sums of `counts` (which are known to fit in int by then).
std::vector<int> displacements(const std::vector<int>& counts) {
  std::vector<int> displs(counts.size(), 0);
  for (std::size_t p = 1; p < counts.size(); ++p) displs[p] = displs[p - 1] + counts[p - 1];
  return displs;
}

int64_t total(const std::vector<uint64_t>& counts) {
  uint64_t sum = 0;
  for (uint64_t count : counts) sum += count;
  return sum > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(sum);
}

}  // namespace

MessageMatching MessageMatching::build(const LocalTrace& trace, const Definitions& definitions,
                                       const Communicators& comms, MPI_Comm world,
                                       std::string& error, bool tolerate_truncation) {
  error.clear();
  int world_size = 0, my_rank = 0;
  MPI_Comm_size(world, &world_size);
  MPI_Comm_rank(world, &my_rank);
  const auto n = static_cast<std::size_t>(world_size);
  const uint32_t self = trace.rank;

  MessageMatching matching;
  matching.send_position_.assign(trace.sends.size(), kNone);
  matching.send_matched_.assign(trace.sends.size(), 0);
  matching.recv_position_.assign(trace.recvs.size(), kNone);
  matching.send_counts_.assign(n, 0);
  matching.recv_counts_.assign(n, 0);
  matching.send_displs_.assign(n, 0);
  matching.recv_displs_.assign(n, 0);

  // Validation and, on the way, each send's
  // destination and each receive's source as world ranks.
  CommResolver resolver(definitions, comms);
  std::string local_error;
  const auto unknown = [&](const MessageOp& op, const char* what) {
    if (!local_error.empty()) return;
    local_error = "rank " + std::to_string(trace.rank) + " has a " + what + " on communicator " +
                  std::to_string(op.comm) + " with peer " + std::to_string(op.peer) +
                  " that the definitions do not know";
  };
  std::vector<uint64_t> sent_to(n, 0), received_from(n, 0);
  for (std::size_t i = 0; i < trace.sends.size(); ++i) {
    const MessageOp& op = trace.sends[i];
    if (op.cancelled) continue;
    const uint32_t peer = resolver.world_rank(op.comm, op.peer, self);
    if (peer >= n) {
      unknown(op, "send");
      continue;
    }
    matching.send_position_[i] = peer;  // the destination for now, the position below
    ++sent_to[peer];
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
    source[j] = peer;
    ++received_from[peer];
  }
  std::vector<uint64_t> they_sent(n, 0);
  MPI_Alltoall(sent_to.data(), 1, MPI_UINT64_T, they_sent.data(), 1, MPI_UINT64_T, world);
  for (std::size_t p = 0; p < n && local_error.empty() && !tolerate_truncation; ++p) {
    if (they_sent[p] != received_from[p]) {
      local_error = "the traces disagree: rank " + std::to_string(p) + " sent " +
                    std::to_string(they_sent[p]) + " messages to rank " +
                    std::to_string(trace.rank) + ", which received " +
                    std::to_string(received_from[p]) + " (a truncated or inconsistent trace)";
    }
  }
  const int64_t sending = total(sent_to);
  const int64_t receiving = total(they_sent);
  if (local_error.empty() && (sending > INT_MAX || receiving > INT_MAX)) {
    local_error = "rank " + std::to_string(trace.rank) + " exchanges " +
                  std::to_string(sending) + " sent and " + std::to_string(receiving) +
                  " received messages with its peers, more than the " + std::to_string(INT_MAX) +
                  " one MPI exchange can carry";
  }

  // Agree: the first failing rank's text goes to every rank, and all return
  // a matching that carries nothing (its exchanges stay collective and safe).
  const int mine = local_error.empty() ? world_size : my_rank;
  int first = world_size;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, world);
  if (first != world_size) {
    int length = static_cast<int>(local_error.size());
    MPI_Bcast(&length, 1, MPI_INT, first, world);
    local_error.resize(static_cast<std::size_t>(length));
    MPI_Bcast(local_error.data(), length, MPI_CHAR, first, world);
    error = local_error;
    std::fill(matching.send_position_.begin(), matching.send_position_.end(), kNone);
    return matching;
  }

  // Block layout: destinations in rank order, each in posting order.
  for (std::size_t p = 0; p < n; ++p) {
    matching.send_counts_[p] = static_cast<int>(sent_to[p]);
    matching.recv_counts_[p] = static_cast<int>(they_sent[p]);
  }
  matching.send_displs_ = displacements(matching.send_counts_);
  matching.recv_displs_ = displacements(matching.recv_counts_);
  matching.send_total_ = static_cast<std::size_t>(sending);
  matching.recv_total_ = static_cast<std::size_t>(receiving);

  // The channel of every message travels once.
  std::vector<uint64_t> outgoing(matching.send_total_);
  {
    std::vector<int> fill = matching.send_displs_;
    for (std::size_t i = 0; i < trace.sends.size(); ++i) {
      const uint32_t destination = matching.send_position_[i];
      if (destination == kNone) continue;
      const auto position = static_cast<uint32_t>(fill[destination]++);
      matching.send_position_[i] = position;
      outgoing[position] = channel(trace.sends[i].comm, trace.sends[i].tag);
    }
  }
  std::vector<uint64_t> incoming(matching.recv_total_);
  MPI_Alltoallv(outgoing.data(), matching.send_counts_.data(), matching.send_displs_.data(),
                MPI_UINT64_T, incoming.data(), matching.recv_counts_.data(),
                matching.recv_displs_.data(), MPI_UINT64_T, world);
  outgoing = std::vector<uint64_t>();

  // Per source, the received slots pair with this rank's receives channel by
  // channel in posting order; what is left over on a channel stays
  // unmatched. The receives are grouped by source (a counting sort keeps
  // their order); per source the channels get dense numbers and the slots
  // are bucketed by channel, in order. Linear in the messages, no sorting.
  // (The counts agree per source unless truncation is tolerated: this
  // rank's receives get their own layout.)
  std::vector<std::size_t> mine_displs(n + 1, 0);
  for (std::size_t p = 0; p < n; ++p) mine_displs[p + 1] = mine_displs[p] + received_from[p];
  std::vector<uint32_t> receives(mine_displs[n]);
  {
    std::vector<std::size_t> fill(mine_displs.begin(), mine_displs.end() - 1);
    for (std::size_t j = 0; j < trace.recvs.size(); ++j) {
      if (source[j] != kNone) receives[fill[source[j]]++] = static_cast<uint32_t>(j);
    }
  }
  matching.known_recvs_ = receives.size();
  std::vector<uint8_t> slot_matched(matching.recv_total_, 0);
  ChannelNumbers numbers;
  std::vector<uint32_t> slot_channel, by_channel, starts, taken;
  for (std::size_t p = 0; p < n; ++p) {
    const auto begin = static_cast<std::size_t>(matching.recv_displs_[p]);
    const auto count = static_cast<std::size_t>(matching.recv_counts_[p]);
    if (count == 0) continue;
    numbers.clear();
    slot_channel.resize(count);
    for (std::size_t k = 0; k < count; ++k) slot_channel[k] = numbers.add(incoming[begin + k]);
    starts.assign(numbers.size() + 1, 0);
    for (std::size_t k = 0; k < count; ++k) ++starts[slot_channel[k] + 1];
    for (std::size_t c = 1; c < starts.size(); ++c) starts[c] += starts[c - 1];
    taken.assign(numbers.size(), 0);
    by_channel.resize(count);
    for (std::size_t k = 0; k < count; ++k) {
      const uint32_t c = slot_channel[k];
      by_channel[starts[c] + taken[c]++] = static_cast<uint32_t>(begin + k);
    }
    std::fill(taken.begin(), taken.end(), 0U);
    for (std::size_t b = mine_displs[p]; b < mine_displs[p + 1]; ++b) {
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
  std::vector<uint8_t> sent_matched(matching.send_total_);
  MPI_Alltoallv(slot_matched.data(), matching.recv_counts_.data(), matching.recv_displs_.data(),
                MPI_UINT8_T, sent_matched.data(), matching.send_counts_.data(),
                matching.send_displs_.data(), MPI_UINT8_T, world);
  matching.known_sends_ = matching.send_total_;
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
  std::vector<int64_t> outgoing(send_total_);
  for (std::size_t i = 0; i < per_send.size(); ++i) {
    const uint32_t position = send_position_[i];
    if (position != kNone) outgoing[position] = per_send[i];
  }
  std::vector<int64_t> incoming(recv_total_);
  if (!send_counts_.empty()) {  // empty only when default-constructed: nothing to carry
    MPI_Alltoallv(outgoing.data(), send_counts_.data(), send_displs_.data(), MPI_INT64_T,
                  incoming.data(), recv_counts_.data(), recv_displs_.data(), MPI_INT64_T, world);
  }
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
  std::vector<int64_t> outgoing(recv_total_, kNoValue);
  for (std::size_t j = 0; j < per_recv.size(); ++j) {
    const uint32_t position = recv_position_[j];
    if (position != kNone) outgoing[position] = per_recv[j];
  }
  std::vector<int64_t> incoming(send_total_);
  if (!recv_counts_.empty()) {  // empty only when default-constructed: nothing to carry
    MPI_Alltoallv(outgoing.data(), recv_counts_.data(), recv_displs_.data(), MPI_INT64_T,
                  incoming.data(), send_counts_.data(), send_displs_.data(), MPI_INT64_T, world);
  }
  std::vector<int64_t> result(send_position_.size());
  for (std::size_t i = 0; i < result.size(); ++i) {
    const uint32_t position = send_position_[i];
    result[i] = position == kNone ? kNoValue : incoming[position];
  }
  return result;
}

}  // namespace orrery::analyzer

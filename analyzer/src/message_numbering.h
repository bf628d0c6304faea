#pragma once
// Internal to message_exchange.cpp: the lookups MessageMatching::build does
// per message (a communicator's members, a peer's or channel's dense number),
// each with its common case inline.

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "orrery/analyzer/communicators.h"
#include "orrery/trace/trace.h"

namespace orrery::analyzer::message_numbering {

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

  /// The number of `key`; kNone if it has none. The repeated key (messages
  /// come in runs on one channel) is answered inline.
  uint32_t find(uint64_t key) {
    if (key == last_key_ && last_number_ != kNone) return last_number_;
    return find_new(key);
  }

  /// The number of `key`, given it one if new.
  uint32_t add(uint64_t key) {
    if (key == last_key_ && last_number_ != kNone) return last_number_;
    return add_new(key);
  }

 private:
  static constexpr std::size_t kLinear = 8;

  [[gnu::noinline]] uint32_t find_new(uint64_t key) {
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

  [[gnu::noinline]] uint32_t add_new(uint64_t key) {
    uint32_t number = find_new(key);
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

  std::vector<uint64_t> keys_;
  std::unordered_map<uint64_t, uint32_t> map_;
  uint64_t last_key_ = ~uint64_t{0};
  uint32_t last_number_ = kNone;
};

}  // namespace orrery::analyzer::message_numbering

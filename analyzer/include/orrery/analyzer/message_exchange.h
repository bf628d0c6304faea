#pragma once
// Carries one value per point-to-point message from one side of the message
// to the other (send enter times forward, receive post times backward).
// Values are matched exactly as MPI matched the traced messages: per
// channel (communicator, sender, receiver, tag) in posting order, with the
// recorded actual source and tag of wildcard receives. All values for one
// peer travel in one block, only between the ranks that exchanged messages
// (partner_exchange.h), so the cost per rank is linear in its partners and
// its own messages, whatever the number of ranks, and no rank can wait for
// another.

#include <mpi.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "orrery/analyzer/communicators.h"
#include "orrery/analyzer/partner_exchange.h"
#include "orrery/trace/trace.h"

namespace orrery::analyzer {

// kNoValue (orrery/trace/ids.h): the value of messages that have none
// (cancelled, never matched).

/// How this rank's sends and receives pair with its peers' messages, as MPI
/// matched them (per communicator, peer and tag, in posting order, skipping
/// cancelled operations and receives without a known source). Built once,
/// collectively (the partners are discovered once, sparsely); afterwards
/// values travel along the messages as plain int64 blocks with precomputed
/// positions, one block per partner, no lookups.
class MessageMatching {
 public:
  /// An empty matching (no messages): exchanges take empty vectors, return
  /// empty vectors and do not communicate.
  MessageMatching() = default;

  /// Collective over `world` (one rank per traced rank, `trace.rank` being
  /// this one). Validates (the reference in the tests: check_messages): every
  /// non-cancelled send and every non-cancelled receive with a known source
  /// must name a communicator and peer the definitions know and `comms`
  /// holds, and every pair of ranks must agree on how many messages went
  /// between them. On failure anywhere,
  /// every rank gets the same `error` (the first failing rank's text) and an
  /// object whose exchanges are safe but carry nothing (all kNoValue). `error` is empty if all is well.
  /// With `tolerate_truncation` (an incomplete experiment, where a rank's
  /// trace may end before its partner's), pairs of ranks may disagree on the
  /// count: per channel the messages pair in posting order as usual and the
  /// surplus on either side stays unmatched (unmatched_sends/recvs).
  static MessageMatching build(const LocalTrace& trace, const Definitions& definitions,
                               const Communicators& comms, MPI_Comm world, std::string& error,
                               bool tolerate_truncation = false);

  /// per_send[i] for send i (size: the trace's sends) → for each receive j
  /// the value of its matching send (kNoValue if none). Every rank calls it
  /// (only partners communicate).
  [[nodiscard]] std::vector<int64_t> to_receivers(const std::vector<int64_t>& per_send,
                                                  MPI_Comm world) const;
  /// per_recv[j] for receive j (size: the trace's receives) → for each send i
  /// the value of its matching receive (kNoValue if none). Every rank calls
  /// it; the exact reverse path of to_receivers.
  [[nodiscard]] std::vector<int64_t> to_senders(const std::vector<int64_t>& per_recv,
                                                MPI_Comm world) const;

  /// Where a message travels in a replay that sends one value per message
  /// (the what-if replay, what_if.h): the partner's world rank and the
  /// message's number among those from its sender to its receiver, the same
  /// on both sides. `peer` is kNone for a message without a partner.
  struct Route {
    uint32_t peer = kNone;
    uint32_t number = 0;
  };
  [[nodiscard]] Route send_route(std::size_t i) const;
  [[nodiscard]] Route recv_route(std::size_t j) const;

  /// The way back from a Route to this rank's own operation, without
  /// communication: a partner names one of this rank's messages by its
  /// Route (its peer: this rank, the number: the same on both sides), and
  /// this rank finds its send or receive by (the partner, the number). What
  /// an exchange of operation indices along every message would tell, at
  /// 4 bytes per message and no traffic (message_routes.cpp).
  class RouteIndex {
   public:
    /// This rank's send with `number` among its messages to `peer` (kNone if none).
    [[nodiscard]] uint32_t send_at(uint32_t peer, uint32_t number) const {
      return at(send_of_position_, sends_in_place_, to_, peer, number);
    }
    /// This rank's receive matching message `number` from `peer` (kNone if none).
    [[nodiscard]] uint32_t recv_at(uint32_t peer, uint32_t number) const {
      return at(recv_of_position_, recvs_in_place_, from_, peer, number);
    }
    /// Whether the sends / receives are where their positions are (the
    /// matching's blocks laid out as the tables are): then the lookups need
    /// no table (position = operation index), and none is built.
    [[nodiscard]] bool sends_in_place() const { return sends_in_place_ != kNone; }
    [[nodiscard]] bool recvs_in_place() const { return recvs_in_place_ != kNone; }

    /// send_route / recv_route of the matching, quicker for runs of one partner.
    [[nodiscard]] Route send_route(std::size_t i) const;
    [[nodiscard]] Route recv_route(std::size_t j) const;

   private:
    friend class MessageMatching;
    /// The route of flat `position` in `layout`, trying block `last` first.
    [[nodiscard]] static Route route_at(const BlockLayout& layout, uint32_t position,
                                        std::size_t& last);
    /// Lookups come in runs of one partner: the last block found is tried first.
    [[nodiscard]] uint32_t at(const std::vector<uint32_t>& of_position, uint32_t in_place,
                              const BlockLayout& layout, uint32_t peer, uint32_t number) const {
      std::size_t& last = &layout == &to_ ? last_to_ : last_from_;
      if (last >= layout.peers.size() || layout.peers[last] != peer) last = block_of(layout, peer);
      if (last >= layout.peers.size() || number >= layout.counts[last]) return kNone;
      const std::size_t position = layout.displs[last] + number;
      if (in_place != kNone) return position < in_place ? static_cast<uint32_t>(position) : kNone;
      return of_position[position];
    }
    [[nodiscard]] static std::size_t block_of(const BlockLayout& layout, uint32_t peer);
    std::vector<uint32_t> send_of_position_, recv_of_position_;
    /// kNone, or the number of operations if each one's position is its
    /// index (the of_position tables stay empty).
    uint32_t sends_in_place_ = kNone, recvs_in_place_ = kNone;
    BlockLayout to_, from_;  ///< the matching's layouts (one entry per partner)
    const MessageMatching* matching_ = nullptr;
    mutable std::size_t last_to_ = 0, last_from_ = 0, route_to_ = 0, route_from_ = 0;
  };
  /// Builds the RouteIndex (linear in this rank's messages, local).
  [[nodiscard]] RouteIndex route_index() const;

  /// to_receivers for two values per message in one exchange. The inputs
  /// are taken (and freed as soon as they are packed: the peak holds two
  /// of the four per-message vectors at a time, not all of them).
  [[nodiscard]] std::pair<std::vector<int64_t>, std::vector<int64_t>> to_receivers(
      std::vector<int64_t> first, std::vector<int64_t> second, MPI_Comm world) const;
  /// to_senders for two values per message in one exchange (inputs taken, as above).
  [[nodiscard]] std::pair<std::vector<int64_t>, std::vector<int64_t>> to_senders(
      std::vector<int64_t> first, std::vector<int64_t> second, MPI_Comm world) const;

  /// Number of sends / receives the matching was built for.
  [[nodiscard]] std::size_t sends() const { return send_position_.size(); }
  [[nodiscard]] std::size_t recvs() const { return recv_position_.size(); }
  /// Receives of this rank paired with a send (what the forward replay counts).
  [[nodiscard]] std::size_t matched_recvs() const { return matched_recvs_; }
  /// Sends of this rank paired with a receive.
  [[nodiscard]] std::size_t matched_sends() const { return matched_sends_; }
  /// Sends with a known destination / receives with a known source that
  /// found no partner (cancelled ones and unknown peers not counted).
  [[nodiscard]] std::size_t unmatched_sends() const { return known_sends_ - matched_sends_; }
  [[nodiscard]] std::size_t unmatched_recvs() const { return known_recvs_ - matched_recvs_; }
  /// Whether receive j / send i has a partner.
  [[nodiscard]] bool recv_matched(std::size_t j) const { return recv_position_[j] != kNone; }
  [[nodiscard]] bool send_matched(std::size_t i) const { return send_matched_[i] != 0; }

 private:
  /// Per send: its position in the outgoing blocks (destinations in rank
  /// order, each in posting order); kNone if it travels nowhere.
  std::vector<uint32_t> send_position_;
  /// Per send: 1 if its receiver has a receive for it.
  std::vector<uint8_t> send_matched_;
  /// Per receive: the position of its matching send in the incoming blocks;
  /// kNone if unmatched.
  std::vector<uint32_t> recv_position_;
  /// The blocks this rank sends (one per destination) and receives (one per
  /// source that sent to it).
  BlockLayout to_, from_;
  /// send_position_[i] == i for every send / recv_position_[j] == j for
  /// every receive (every message matched, the blocks laid out as the
  /// tables are): exchanges read and write the callers' vectors directly.
  bool sends_in_place_ = false;
  bool recvs_in_place_ = false;
  std::size_t matched_recvs_ = 0;
  std::size_t matched_sends_ = 0;
  std::size_t known_sends_ = 0;
  std::size_t known_recvs_ = 0;
};

}  // namespace orrery::analyzer

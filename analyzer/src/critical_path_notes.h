#pragma once
// Internal to the critical path's walk (replay_critical_path.cpp): the
// stretches of the path that the look-ahead found on other processes (the
// path went there and straight back), as tokens for those processes
// (TokenPacking: one value each). A process's notes travel in batches as
// soon as a batch is full, so that it resolves and splits them while the
// walk goes on (it would only wait for the token otherwise); the rest goes
// in one exchange after the walk.

#include <mpi.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "orrery/analyzer/partner_exchange.h"

namespace orrery::analyzer::critical_path {

/// Notes that came from other processes after the walk: the rest of each
/// sender's notes (in blocks by sender, ascending), and per sender how many
/// batches it sent during the walk (ascending; the receiver takes those it
/// has not received yet).
struct NotesIn {
  std::vector<int64_t> values;
  BlockLayout from;
  std::vector<std::pair<uint32_t, uint64_t>> batches;
};

/// This process's notes for the others.
class Notes {
 public:
  /// Notes per batch sent during the walk (the same on every rank).
  static constexpr std::size_t kBatch = std::size_t{1} << 15;
  [[nodiscard]] static std::size_t batch_size();
  /// The batches' tag on the walk's communicator.
  static constexpr int kTag = 0x4f71;

  /// `comm`: the walk's communicator (world ranks), which must outlive wait_sent().
  explicit Notes(MPI_Comm comm) : comm_(comm) {}
  Notes(const Notes&) = delete;
  Notes& operator=(const Notes&) = delete;

  void add(uint32_t peer, int64_t packed) {
    if (last_ >= peers_.size() || peers_[last_].peer != peer) find(peer);
    Peer& to = peers_[last_];
    to.rest.push_back(packed);
    if (to.rest.size() == batch_) send_batch(to);
  }
  /// Collective over `world`, after the walk: the rest of the notes to their
  /// processes; returns the notes that came here.
  [[nodiscard]] NotesIn exchange(MPI_Comm world);
  /// Returns once the batches sent during the walk have been received.
  void wait_sent();

 private:
  struct Peer {
    uint32_t peer = 0;
    std::vector<int64_t> rest;  ///< not sent yet, in the order noted
    uint64_t batches = 0;       ///< sent during the walk
  };
  void find(uint32_t peer);
  void send_batch(Peer& to);

  MPI_Comm comm_;
  std::size_t batch_ = batch_size();
  std::vector<Peer> peers_;
  std::size_t last_ = 0;  ///< the peer of the last note: notes come in runs
  std::vector<std::vector<int64_t>> in_flight_;  ///< batches sent (kept until received)
  std::vector<MPI_Request> requests_;
};

/// The tests' switch for the notes per batch (0: kBatch), and how many
/// batches this process sent during walks so far.
void set_note_batch(std::size_t notes);
[[nodiscard]] uint64_t note_batches_sent();

}  // namespace orrery::analyzer::critical_path

// The critical path's notes for other processes (critical_path_notes.h).

#include <algorithm>
#include <atomic>
#include <utility>
#include <vector>

#include "critical_path_notes.h"
#include "vmpi.h"

namespace orrery::analyzer::critical_path {
namespace {

/// A sender's count in discover_senders: the notes left for the exchange in
/// the low 32 bits, the batches sent during the walk above them.
constexpr int kBatchesShift = 32;
constexpr uint64_t kRestMask = (uint64_t{1} << kBatchesShift) - 1;

// Atomic: with fewer analysis processes than traced ranks, each thread of a
// process walks for a rank (block_host.h).
std::atomic<std::size_t> batch_notes{0};
std::atomic<uint64_t> batches_sent{0};

}  // namespace

void set_note_batch(std::size_t notes) { batch_notes = notes; }
uint64_t note_batches_sent() { return batches_sent; }

std::size_t Notes::batch_size() {
  const std::size_t notes = batch_notes;
  return notes == 0 ? kBatch : notes;
}

void Notes::find(uint32_t peer) {
  last_ = 0;
  while (last_ < peers_.size() && peers_[last_].peer != peer) ++last_;
  if (last_ == peers_.size()) peers_.push_back(Peer{peer, {}, 0});
}

void Notes::send_batch(Peer& to) {
  in_flight_.push_back(std::move(to.rest));
  to.rest = {};
  to.rest.reserve(batch_);
  ++to.batches;
  ++batches_sent;
  MPI_Request request = MPI_REQUEST_NULL;
  vmpi::Isend(in_flight_.back().data(), static_cast<int>(batch_), MPI_INT64_T,
              static_cast<int>(to.peer), kTag, comm_, &request);
  requests_.push_back(request);
}

NotesIn Notes::exchange(MPI_Comm world) {
  std::sort(peers_.begin(), peers_.end(), [](const Peer& x, const Peer& y) { return x.peer < y.peer; });
  last_ = peers_.size();
  std::vector<uint32_t> destinations;
  std::vector<uint64_t> counts;
  BlockLayout to;
  std::vector<int64_t> out;
  for (Peer& peer : peers_) {
    destinations.push_back(peer.peer);
    counts.push_back(static_cast<uint64_t>(peer.rest.size()) | (peer.batches << kBatchesShift));
    if (peer.rest.empty()) continue;
    to.add(peer.peer, peer.rest.size());
    if (out.empty()) {
      out = std::move(peer.rest);
    } else {
      out.insert(out.end(), peer.rest.begin(), peer.rest.end());
    }
    peer.rest = {};
  }
  NotesIn in;
  for (const auto& [source, count] : discover_senders(destinations, counts, world)) {
    if ((count & kRestMask) != 0) in.from.add(source, static_cast<std::size_t>(count & kRestMask));
    if ((count >> kBatchesShift) != 0) in.batches.emplace_back(source, count >> kBatchesShift);
  }
  in.values.resize(in.from.total);
  exchange_blocks(out.data(), to, in.values.data(), in.from, MPI_INT64_T, world);
  return in;
}

void Notes::wait_sent() {
  if (!requests_.empty()) {
    vmpi::Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
  }
  requests_.clear();
  in_flight_.clear();
}

}  // namespace orrery::analyzer::critical_path

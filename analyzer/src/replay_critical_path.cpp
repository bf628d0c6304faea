// The critical path's backward walk (replay_critical_path.h): one token
// passed from the process that finished last to the processes that caused
// its waits, each splitting its stretch of the path over its call paths.

#include "orrery/analyzer/replay_critical_path.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "critical_path_model.h"
#include "critical_path_notes.h"
#include "critical_path_split.h"
#include "orrery/replay/critical_path_events.h"
#include "orrery/analyzer/partner_exchange.h"
#include "vmpi.h"

namespace orrery::analyzer {
namespace {

using critical_path::CollectiveArrivals;
using critical_path::Notes;
using critical_path::ResumeKind;
using critical_path::Token;
using critical_path::WaitPoint;

constexpr int kTokenTag = 0x4f70;

/// The end of the done notice: rank 0 tells its children in the binomial
/// tree, each tells its own, so every rank leaves the walk after O(log P).
void forward_done(int rank, int size, MPI_Comm comm) {
  const int64_t done[4] = {static_cast<int64_t>(ResumeKind::kDone), 0, 0, 0};
  int lowest = 1;
  while (lowest < size && (rank & lowest) == 0) lowest <<= 1;
  for (int step = lowest >> 1; step >= 1; step >>= 1) {
    if (rank + step < size) vmpi::Send(done, 4, MPI_INT64_T, rank + step, kTokenTag, comm);
  }
}

/// One process's part of the walk.
class Walker {
 public:
  Walker(const LocalTrace& trace, const CallTree& tree, const CollectiveArrivals& collectives,
         const critical_path::TokenPacking& packing, const MessageMatching::RouteIndex& routes,
         critical_path::WaitPoints found, const EventBus& bus, uint32_t self, int64_t max_hops)
      : trace_(trace), collectives_(collectives), packing_(packing), routes_(routes),
        points_(std::move(found.points)), waiting_(std::move(found.waiting)),
        publish_(bus.publisher<CriticalPathBatch>()),
        splitter_(trace, tree), self_(self), max_hops_(max_hops) {
    // Each stretch starts at a different wait point of this process or at
    // its start (unless inconsistent times make the path cycle).
    stretches_.reserve(points_.size() + 1);
    batch_.reserve(kBatch + kChunk * critical_path::StretchSplitter::kFew);
    chunk_.reserve(kChunk);
  }

  /// Walks back from where `token` says, over this process's stretches of
  /// the path. Where the path would go to a partner and straight back (the
  /// partner's look-ahead says so), the partner's stretch goes into `notes`
  /// and the walk goes on here. Returns the token for the process the path
  /// moves to (delayer kNone: the path's start, or the walk cut short).
  std::pair<Token, uint32_t> step(Token token, Notes& notes) {
    int64_t hops = token.hops;
    uint32_t to = resume_event(token);
    for (;;) {
      if (to == kNone) {
        complete_ = false;  // a token this rank cannot place: the walk stops here
        return {token, kNone};
      }
      const WaitPoint* wait = stretch(to);
      hops_ = std::max(hops_, hops);
      if (wait == nullptr) return {token, kNone};
      const bool back_here = wait->delayer != self_ && wait->comes_back();
      hops += back_here ? 2 : 1;
      if (hops > max_hops_) {
        complete_ = false;
        return {token, kNone};
      }
      if (!back_here) {
        Token next = wait->resume();
        next.hops = hops;
        return {next, wait->delayer};
      }
      looked_ahead_ += 2;
      notes.add(wait->delayer, packing_.pack(wait->resume()));
      token = wait->back();
      to = resume_event(token);
    }
  }
  /// Splits and publishes the stretch a partner's look-ahead found on this
  /// process (`token`'s entry point), after the walk's own: in the order
  /// noted, kChunk at a time (finish() publishes the rest).
  /// noted() for block `b` of the notes that came after the walk.
  void noted_block(const critical_path::NotesIn& in, std::size_t b) {
    const std::size_t first = in.from.displs[b];
    for (std::size_t k = first; k < first + in.from.counts[b]; ++k) {
      noted(packing_.unpack(in.values[k], in.from.peers[b]));
    }
  }
  void noted(const Token& token) {
    const uint32_t to = resume_event(token);
    if (to == kNone) return;
    chunk_.push_back(as_stretch(latest_(to), to));
    if (chunk_.size() == kChunk) split_chunk();
  }
  void finish() {
    split_chunk();
    flush();
  }
  /// noted() for a batch of `sender`'s notes that came during the walk:
  /// their stretches are found at once and split by publish_early(sender)
  /// (the order of publishing stays the one without batches: own
  /// stretches first, then the senders' in rank order, each in the order
  /// noted).
  void noted_early(uint32_t sender, const std::vector<int64_t>& packed) {
    std::vector<critical_path::Stretch>& found = early_of(sender).emplace_back();
    found.reserve(packed.size());
    for (const int64_t value : packed) {
      const uint32_t to = resume_event(packing_.unpack(value, sender));
      if (to != kNone) found.push_back(as_stretch(latest_(to), to));
    }
  }
  /// Splits and publishes `sender`'s batches, after what came before.
  void publish_early(uint32_t sender) {
    split_chunk();
    for (auto& [from, batches] : early_) {
      if (from != sender) continue;
      for (std::vector<critical_path::Stretch>& found : batches) {
        for (std::size_t at = 0; at < found.size(); at += kChunk) {
          split(found.data() + at, std::min(kChunk, found.size() - at));
        }
        std::vector<critical_path::Stretch>().swap(found);
      }
      batches.clear();
    }
  }
  /// Splits the stretches the walk found (in the order found) over the call
  /// paths and publishes them. The walk only finds them, so that the token
  /// moves on at once and the processes split their stretches in parallel.
  void publish_stretches() {
    split_stretches();
    stretches_.clear();
    flush();
  }
  [[nodiscard]] int64_t length() const { return length_; }
  [[nodiscard]] int64_t hops() const { return hops_; }
  [[nodiscard]] int64_t looked_ahead() const { return looked_ahead_; }
  [[nodiscard]] bool complete() const { return complete_; }

 private:
  /// Notes the path's stretch on this process that ends at event `to`:
  /// back to the latest wait before it (returned), or to the trace's start.
  [[gnu::always_inline]] const WaitPoint* stretch(uint32_t to) {
    const WaitPoint* wait = latest_(to);
    stretches_.push_back(as_stretch(wait, to));
    return wait;
  }
  /// The stretch from wait point `wait` (nullptr: the trace's start) to event
  /// `to`. The only wait point inside is `wait` itself (the latest before
  /// `to`): its waiting is not on the path.
  [[nodiscard]] critical_path::Stretch as_stretch(const WaitPoint* wait, uint32_t to) const {
    return wait == nullptr ? critical_path::Stretch{kNone, to, 0}
                           : critical_path::Stretch{wait->call, to, waiting_[static_cast<std::size_t>(wait - points_.data())]};
  }
  /// Splits the stretches found over the call paths, kChunk at a time.
  void split_stretches() {
    for (std::size_t at = 0; at < stretches_.size(); at += kChunk) {
      split(stretches_.data() + at, std::min(kChunk, stretches_.size() - at));
    }
  }
  /// Splits `count` stretches into the batch (published when full).
  void split(const critical_path::Stretch* stretches, std::size_t count) {
    length_ += splitter_.split_each(stretches, count, batch_);
    if (batch_.size() >= kBatch) flush();
  }
  void split_chunk() {
    split(chunk_.data(), chunk_.size());
    chunk_.clear();
  }
  std::vector<std::vector<critical_path::Stretch>>& early_of(uint32_t sender) {
    for (auto& [from, batches] : early_) {
      if (from == sender) return batches;
    }
    return early_.emplace_back(sender, std::vector<std::vector<critical_path::Stretch>>{}).second;
  }
  /// Publishes the call paths' times found so far, in the order found.
  void flush() {
    if (!batch_.empty()) publish_(CriticalPathBatch{batch_.data(), batch_.size()});
    batch_.clear();
  }
  /// A message's token names it by (route number, the partner's rank).
  [[gnu::always_inline]] uint32_t resume_event(const Token& token) const {
    const auto number = static_cast<uint32_t>(std::max<int64_t>(0, token.a));
    const auto partner = static_cast<uint32_t>(std::max<int64_t>(0, token.b));
    switch (token.kind) {
      case ResumeKind::kEnd:
        return trace_.events.size() == 0 ? kNone : static_cast<uint32_t>(trace_.events.size() - 1);
      case ResumeKind::kSend: {
        const uint32_t send = routes_.send_at(partner, number);
        return send < trace_.sends.size() ? posting_call(trace_.sends[send]) : kNone;
      }
      case ResumeKind::kRecv: {
        const uint32_t recv = routes_.recv_at(partner, number);
        return recv < trace_.recvs.size() ? posting_call(trace_.recvs[recv]) : kNone;
      }
      case ResumeKind::kCollective:
        return collectives_.start_of(token.a, token.b);
      default:
        return kNone;
    }
  }

  const LocalTrace& trace_;
  const CollectiveArrivals& collectives_;
  const critical_path::TokenPacking& packing_;
  const MessageMatching::RouteIndex& routes_;
  std::vector<WaitPoint> points_;
  std::vector<int64_t> waiting_;  ///< per wait point: its call's waiting, not on the path
  critical_path::LatestWaitBefore latest_{points_};  ///< the walk goes back in time: O(1) per stretch
  EventBus::Publisher<CriticalPathBatch> publish_;  ///< the bus's subscribers, looked up once
  /// Call paths' times not yet published (about kBatch: one delivery per
  /// batch, the memory of the batch stays small), split kChunk stretches at a time.
  static constexpr std::size_t kBatch = 4096;
  static constexpr std::size_t kChunk = 512;
  std::vector<CriticalPathFound> batch_;
  std::vector<critical_path::Stretch> chunk_;  ///< stretches being split
  /// Per sender of notes during the walk: its batches' stretches, not yet split.
  std::vector<std::pair<uint32_t, std::vector<std::vector<critical_path::Stretch>>>> early_;
  critical_path::StretchSplitter splitter_;
  std::vector<critical_path::Stretch> stretches_;  ///< found by the walk, in the order found
  uint32_t self_;
  int64_t max_hops_;
  int64_t length_ = 0;
  int64_t hops_ = 0;
  int64_t looked_ahead_ = 0;
  bool complete_ = true;
};

}  // namespace

CriticalPathStatistics replay_critical_path(const LocalTrace& trace, const CallTree& tree,
                                            const Definitions& definitions,
                                            const Communicators& comms,
                                            const MessageMatching& matching, MPI_Comm world,
                                            const EventBus& bus) {
  CriticalPathStatistics statistics;
  CollectiveArrivals collectives(trace, definitions, comms);
  const MessageMatching::RouteIndex routes = matching.route_index();
  const critical_path::TokenPacking packing(definitions);
  critical_path::WaitPoints found = critical_path::find_wait_points(
      trace, definitions, matching, routes, collectives, packing, world);
  // Every hop moves back to an earlier wait state: more hops than wait
  // states overall means inconsistent times (a cycle); the walk stops there.
  int64_t max_hops = static_cast<int64_t>(found.points.size());
  vmpi::Allreduce(MPI_IN_PLACE, &max_hops, 1, MPI_INT64_T, MPI_SUM, world);
  int rank = 0, size = 0;
  vmpi::Comm_rank(world, &rank);
  vmpi::Comm_size(world, &size);
  Walker walker(trace, tree, collectives, packing, routes, std::move(found), bus,
                static_cast<uint32_t>(rank), max_hops);
  // The process whose trace ended last (ties: the highest rank).
  int64_t last[2] = {trace.events.size() == 0 ? INT64_MIN : trace.events[trace.events.size() - 1].time,
                     rank};
  critical_path::PairMax().allreduce(last, 1, world);
  const int64_t end = last[0], last_rank = last[1];
  if (end == INT64_MIN || last_rank < 0) return statistics;  // no events anywhere
  statistics.last_rank = static_cast<uint32_t>(last_rank);

  MPI_Comm comm = MPI_COMM_NULL;
  vmpi::Comm_dup(world, &comm);
  Notes notes(comm);
  // Batches of notes for this process, as they come (the walk goes on
  // elsewhere meanwhile): received and split at once.
  std::vector<std::pair<uint32_t, uint64_t>> batches_in;  // per sender, received so far
  const auto received_from = [&batches_in](uint32_t sender) -> uint64_t& {
    for (auto& entry : batches_in) {
      if (entry.first == sender) return entry.second;
    }
    return batches_in.emplace_back(sender, 0).second;
  };
  std::vector<int64_t> batch(Notes::batch_size());
  const auto receive_batch = [&](uint32_t sender) {
    vmpi::Recv(batch.data(), static_cast<int>(batch.size()), MPI_INT64_T, static_cast<int>(sender),
               Notes::kTag, comm, MPI_STATUS_IGNORE);
    ++received_from(sender);
    walker.noted_early(sender, batch);
  };
  bool have_local = rank == last_rank;
  Token local{ResumeKind::kEnd, 0, 0, 0};
  for (;;) {
    Token token = local;
    if (have_local) {
      have_local = false;
    } else {
      // The token first (its sender's batches sent before it may wait: the
      // walk must not), then a batch of notes, else wait for either.
      MPI_Status status;
      int flag = 0;
      vmpi::Iprobe(MPI_ANY_SOURCE, kTokenTag, comm, &flag, &status);
      if (flag == 0) {
        vmpi::Iprobe(MPI_ANY_SOURCE, Notes::kTag, comm, &flag, &status);
        if (flag != 0) {
          receive_batch(static_cast<uint32_t>(status.MPI_SOURCE));
        } else {
          vmpi::Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &status);
        }
        continue;
      }
      int64_t message[4];
      vmpi::Recv(message, 4, MPI_INT64_T, status.MPI_SOURCE, kTokenTag, comm, MPI_STATUS_IGNORE);
      token = Token{static_cast<ResumeKind>(message[0]), message[1], message[2], message[3]};
    }
    if (token.kind == ResumeKind::kDone) {
      forward_done(rank, size, comm);
      break;
    }
    const auto [next, delayer] = walker.step(token, notes);
    if (delayer == kNone) {
      // The path's start: rank 0 spreads the word.
      if (rank == 0) {
        local = Token{ResumeKind::kDone, 0, 0, 0};
        have_local = true;
      } else {
        const int64_t done[4] = {static_cast<int64_t>(ResumeKind::kDone), 0, 0, 0};
        vmpi::Send(done, 4, MPI_INT64_T, 0, kTokenTag, comm);
      }
    } else if (delayer == static_cast<uint32_t>(rank)) {
      local = next;
      have_local = true;
    } else {
      const int64_t message[4] = {static_cast<int64_t>(next.kind), next.a, next.b, next.hops};
      vmpi::Send(message, 4, MPI_INT64_T, static_cast<int>(delayer), kTokenTag, comm);
    }
  }
  // The rest of the stretches the look-ahead skipped, each to its process,
  // and the batches still on their way; then every process splits its own
  // stretches and the noted ones, sender by sender.
  const critical_path::NotesIn noted = notes.exchange(world);
  for (const auto& [sender, sent] : noted.batches) {
    while (received_from(sender) < sent) receive_batch(sender);
  }
  walker.publish_stretches();
  std::size_t b = 0;
  for (const auto& [sender, sent] : noted.batches) {
    for (; b < noted.from.peers.size() && noted.from.peers[b] < sender; ++b) walker.noted_block(noted, b);
    walker.publish_early(sender);
  }
  for (; b < noted.from.peers.size(); ++b) walker.noted_block(noted, b);
  walker.finish();
  notes.wait_sent();  // received: the receivers took them right after the exchange
  vmpi::Comm_free(&comm);

  int64_t sums[2] = {walker.length(), walker.looked_ahead()};
  vmpi::Allreduce(MPI_IN_PLACE, sums, 2, MPI_INT64_T, MPI_SUM, world);
  int64_t maxima[2] = {walker.hops(), walker.complete() ? 0 : 1};  // the most hops; any incomplete
  vmpi::Allreduce(MPI_IN_PLACE, maxima, 2, MPI_INT64_T, MPI_MAX, world);
  statistics.length = sums[0];
  statistics.looked_ahead = static_cast<uint64_t>(sums[1]);
  statistics.hops = static_cast<uint64_t>(maxima[0]);
  statistics.complete = maxima[1] == 0;
  return statistics;
}

}  // namespace orrery::analyzer

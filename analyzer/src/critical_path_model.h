#pragma once
// Internal to the critical-path analysis (replay_critical_path.cpp and its
// _waits, _merge and _collectives parts): the wait states where the path
// moves to another process, where on that process it goes on, and one hop
// of look-ahead: where it would go from there.

#include <mpi.h>

#include <cstdint>
#include <utility>
#include <vector>

#include "orrery/analyzer/communicators.h"
#include "orrery/analyzer/lower_bound_near.h"
#include "orrery/analyzer/message_exchange.h"
#include "orrery/trace/trace.h"
#include "vmpi.h"

namespace orrery::analyzer::critical_path {

/// Where the path goes on at the process that caused a wait: the Enter of
/// its send or of its receive's posting call (a = the message's route
/// number, b = the partner's world rank: MessageMatching::RouteIndex finds
/// the operation), or of its start of a collective instance (a =
/// communicator, b = ordinal).
/// kEnd: the end of the trace (the walk's start) or, in a look-ahead, "no
/// wait before: the path starts on that process".
enum class ResumeKind : int64_t { kDone = 0, kEnd = 1, kSend = 2, kRecv = 3, kCollective = 4 };

/// The token that walks the path: what to resume at, and hops so far.
struct Token {
  ResumeKind kind = ResumeKind::kDone;
  int64_t a = 0;
  int64_t b = 0;
  int64_t hops = 0;
};

/// Where the path goes from a process's entry point: the process it moves
/// to next and the token for it, packed into two int64 for the reductions
/// over collective instances (kNoValue: unknown; along messages one value
/// does, TokenPacking).
struct LookAhead {
  int64_t who = kNoValue;    ///< (world rank << 8) | kind
  int64_t where = kNoValue;  ///< (a << 32) | b
  [[nodiscard]] bool known() const { return who != kNoValue; }
  [[nodiscard]] uint32_t rank() const { return static_cast<uint32_t>(who >> 8); }
  [[nodiscard]] Token token() const {
    const auto bits = static_cast<uint64_t>(where);
    return Token{static_cast<ResumeKind>(who & 0xff), static_cast<int64_t>(bits >> 32),
                 static_cast<int64_t>(bits & 0xffffffffULL), 0};
  }
  static LookAhead of(uint32_t rank, const Token& token) {
    return {(static_cast<int64_t>(rank) << 8) | static_cast<int64_t>(token.kind),
            static_cast<int64_t>((static_cast<uint64_t>(token.a) << 32) |
                                 (static_cast<uint64_t>(token.b) & 0xffffffffULL))};
  }
};

/// An MPI reduction of (time, rank) pairs: the larger time wins, ties go to
/// the larger rank. The pair type and operation live as long as the object.
class PairMax {
 public:
  PairMax() {
    MPI_Type_contiguous(2, MPI_INT64_T, &type_);
    MPI_Type_commit(&type_);
    MPI_Op_create(&max_pair, 1, &op_);
  }
  ~PairMax() {
    MPI_Op_free(&op_);
    MPI_Type_free(&type_);
  }
  PairMax(const PairMax&) = delete;
  PairMax& operator=(const PairMax&) = delete;
  /// `pairs` holds (time, rank) pairs one after the other.
  void allreduce(int64_t* pairs, std::size_t count, MPI_Comm comm) const {
    vmpi::Allreduce(MPI_IN_PLACE, pairs, static_cast<int>(count), type_, op_, comm);
  }

 private:
  static void max_pair(void* in, void* inout, int* length, MPI_Datatype* /*type*/) {
    const auto* x = static_cast<const int64_t*>(in);
    auto* y = static_cast<int64_t*>(inout);
    for (int i = 0; i < *length; ++i, x += 2, y += 2) {
      if (x[0] > y[0] || (x[0] == y[0] && x[1] > y[1])) {
        y[0] = x[0];
        y[1] = x[1];
      }
    }
  }
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
  MPI_Op op_ = MPI_OP_NULL;
};

/// A token in one int64 for the process that is sent it by the process the
/// token's operation is shared with (a look-ahead along a message, a note):
/// 0 for none, else the kind in bits 60-62 and, for a message, its route
/// number (the token's b is the sender, which the receiver knows); for a
/// collective instance, the communicator's place among the definitions'
/// communicators in bits 32-59 and the ordinal. kNoValue stays "unknown".
class TokenPacking {
 public:
  explicit TokenPacking(const Definitions& definitions);
  static constexpr int kKindShift = 60;
  static constexpr int64_t kLow32 = 0xffffffffLL;
  [[nodiscard]] int64_t pack(const Token& token) const {
    if (token.kind == ResumeKind::kCollective) return pack_collective(token);
    return (static_cast<int64_t>(token.kind) << kKindShift) | (token.a & kLow32);
  }
  /// The token `value` stands for, sent by world rank `sender` (kDone: none).
  [[nodiscard]] Token unpack(int64_t value, uint32_t sender) const {
    if (value <= 0) return Token{};
    const auto kind = static_cast<ResumeKind>(value >> kKindShift);
    if (kind != ResumeKind::kCollective) return Token{kind, value & kLow32, sender, 0};
    return unpack_collective(value);
  }

 private:
  [[nodiscard]] Token unpack_collective(int64_t value) const;
  [[nodiscard]] int64_t pack_collective(const Token& token) const;
  std::vector<uint32_t> comm_ids_;  ///< the definitions' communicators in id order
};

/// A call of this process that waited for another process (32 bytes: the
/// communication-only benchmark trace has one per six events). Tokens are
/// kept without their hops; their a and b fit 32 bits, as LookAhead packs them.
struct WaitPoint {
  uint32_t call = kNone;     ///< Enter index of the waiting call
  uint32_t delayer = kNone;  ///< world rank of the process that arrived late
  uint32_t resume_a = 0;     ///< where the path goes on there (Token a, b)
  uint32_t resume_b = 0;
  uint32_t op = kNone;       ///< own receive (Late Sender) or send (Late Receiver)
  uint32_t back_a = 0;       ///< where the path goes on here if it comes straight back
  uint32_t back_b = 0;
  uint8_t resume_kind = static_cast<uint8_t>(ResumeKind::kDone);
  uint8_t back_kind = static_cast<uint8_t>(ResumeKind::kDone);  ///< kDone: it does not

  WaitPoint() = default;
  WaitPoint(uint32_t waiting_call, uint32_t late, const Token& there, uint32_t own_op)
      : call(waiting_call), delayer(late), resume_a(static_cast<uint32_t>(there.a)),
        resume_b(static_cast<uint32_t>(there.b)), op(own_op),
        resume_kind(static_cast<uint8_t>(there.kind)) {}
  [[nodiscard]] Token resume() const {
    return Token{static_cast<ResumeKind>(resume_kind), resume_a, resume_b, 0};
  }
  [[nodiscard]] bool comes_back() const { return back_kind != static_cast<uint8_t>(ResumeKind::kDone); }
  [[nodiscard]] Token back() const { return Token{static_cast<ResumeKind>(back_kind), back_a, back_b, 0}; }
  /// Where the path goes on here if it comes straight back (kDone: it does not).
  void set_back(const Token& token) {
    back_kind = static_cast<uint8_t>(token.kind);
    back_a = static_cast<uint32_t>(token.a);
    back_b = static_cast<uint32_t>(token.b);
  }
  /// Keeps the delayer's look-ahead if it sends the path straight back to `self`.
  void set_ahead(const LookAhead& ahead, uint32_t self) {
    if (!ahead.known() || ahead.rank() != self) return;
    const Token token = ahead.token();
    if (token.kind != ResumeKind::kEnd) set_back(token);
  }
};
static_assert(sizeof(WaitPoint) == 32, "wait points must stay compact");

/// A wait point as it is found, with how long its call waited.
struct Candidate {
  WaitPoint point;
  int64_t waiting = 0;  ///< from the call's enter until the delayer arrived
};

/// This rank's wait points, sorted by call, one per call, and how long each waited.
struct WaitPoints {
  std::vector<WaitPoint> points;
  std::vector<int64_t> waiting;
};

/// The latest of `points` (sorted by call) before event `entry`; nullptr if none.
const WaitPoint* latest_before(const std::vector<WaitPoint>& points, uint32_t entry);

/// latest_before for a sequence of entries: it starts from where the last
/// answer was and gallops toward the next (lower_bound_near), so entries
/// that come in order, forward (the operations' posting calls) or backward
/// (the walk), cost O(1) each instead of a binary search over every point;
/// any order gives the same answers as latest_before.
class LatestWaitBefore {
 public:
  explicit LatestWaitBefore(const std::vector<WaitPoint>& points) : points_(&points) {}
  [[gnu::always_inline]] const WaitPoint* operator()(uint32_t entry) {
    const std::size_t at = first_not_before(entry);
    return at == 0 ? nullptr : &(*points_)[at - 1];
  }
  /// The position of the first point whose call is not before `entry`
  /// (std::lower_bound's answer, points_->size() if none).
  [[gnu::always_inline]] std::size_t first_not_before(uint32_t entry) {
    const WaitPoint* const points = points_->data();
    const std::size_t n = points_->size();
    const auto before = [&](std::size_t k) { return points[k].call < entry; };
    // The walk steps back one wait point at a time: try one step first.
    // Forward, the collectives' entries lie some points apart (a collective
    // every few messages): up to kForwardSteps points are stepped over in
    // order (neighbouring cache lines) before a search.
    std::size_t& at = first_not_before_;
    if (at > 0 && !before(at - 1)) {
      --at;
      if (at > 0 && !before(at - 1)) at = search(entry);
    } else if (at < n && before(at)) {
      const std::size_t stop = std::min(n, at + kForwardSteps);
      do {
        ++at;
      } while (at < stop && before(at));
      if (at < n && before(at)) at = search(entry);
    }
    return at;
  }
  LookAhead look_ahead(uint32_t entry);

 private:
  [[nodiscard]] std::size_t search(uint32_t entry) {
    return lower_bound_near(*points_, points_->size(), entry, first_not_before_,
                            [](const WaitPoint& point, uint32_t event) { return point.call < event; });
  }
  static constexpr std::size_t kForwardSteps = 32;
  const std::vector<WaitPoint>* points_;
  std::size_t first_not_before_ = 0;  ///< the last answer's position: points before it are earlier
};

/// The collective instances of this rank per communicator (the ordinals a
/// token names) and their wait points.
class CollectiveArrivals {
 public:
  CollectiveArrivals(const LocalTrace& trace, const Definitions& definitions,
                     const Communicators& comms);
  /// Collective over every communicator of the trace (one reduction of
  /// three (time, rank) pairs per instance, in chunks): appends this rank's
  /// collective wait points.
  void find_waits(std::vector<Candidate>& found);
  /// Collective: the member that arrived last tells the others where the
  /// path goes from its start of the instance (one reduction of two values
  /// per instance); sets the look-ahead of this rank's collective wait
  /// points (`points` sorted by call, all of this rank's wait points).
  void share_look_ahead(std::vector<WaitPoint>& points) const;
  /// Enter index of the start call of instance `ordinal` on `comm` (kNone if none).
  [[nodiscard]] uint32_t start_of(int64_t comm, int64_t ordinal) const;

 private:
  const LocalTrace& trace_;
  const Definitions& definitions_;
  const Communicators& comms_;
  /// Per communicator (id order): the instances (index into trace.collectives)
  /// and, per instance, the communicator rank the path moves to (-1: none).
  struct Instances {
    uint32_t comm = kNone;
    std::vector<uint32_t> ops;
    std::vector<int32_t> delayer;
  };
  std::vector<Instances> by_comm_;
};

/// World rank of a message's peer, remembering the last (communicator,
/// peer): runs of messages between the same processes cost one lookup.
class PeerRanks {
 public:
  PeerRanks(const Definitions& definitions, uint32_t self) : definitions_(definitions), self_(self) {}
  uint32_t operator()(uint32_t comm, uint32_t peer) {
    if (!known_ || comm != comm_ || peer != peer_) {
      known_ = true;
      comm_ = comm;
      peer_ = peer;
      world_ = definitions_.world_rank(comm, peer, self_);
    }
    return world_;
  }

 private:
  const Definitions& definitions_;
  uint32_t self_;
  bool known_ = false;
  uint32_t comm_ = kNone, peer_ = kNone, world_ = kNone;
};

/// Whether any send of this rank waited for its receiver (Late Receiver, as
/// the merge finds them; `recv_enters`: per send, its receive's posting time):
/// most sends are eager and none does.
[[nodiscard]] bool any_late_receiver(const LocalTrace& trace, const std::vector<int64_t>& recv_enters,
                                     const Definitions& definitions, const MessageMatching& matching);
/// The Late Sender, Late Receiver and collective (`collective`, sorted by
/// call) wait points, one per call (the wait that ended last), sorted by call.
[[nodiscard]] WaitPoints merge_wait_points(const LocalTrace& trace, const Definitions& definitions,
                                           const MessageMatching& matching,
                                           const MessageMatching::RouteIndex& routes,
                                           const std::vector<int64_t>& recv_enters,
                                           const std::vector<Candidate>& collective);
/// One wait point per call even where calls came out of order (MPI_Waitany,
/// waits in reverse): then sorted, the longest wait per call kept.
void sort_if_out_of_order(WaitPoints& found);

/// How find_wait_points finds the point-to-point wait points. kAuto: in one
/// pass over the receives, the collective ones merged in, unless some send
/// of this rank waited for its receiver; then, and always with kMerge, the
/// merge of the Late Sender, Late Receiver and collective candidates. The
/// senders look at their sends for that only if some receive anywhere was
/// posted after its send began (the one pass notes it): else none waited.
enum class WaitPointSearch { kAuto, kMerge };
/// The tests' switch between the two (the analysis uses kAuto), how many
/// searches merged so far on this rank, and how many looked at the sends
/// for a Late Receiver.
void set_wait_point_search(WaitPointSearch search);
[[nodiscard]] uint64_t wait_point_merges();
[[nodiscard]] uint64_t late_receiver_searches();

/// This rank's wait points, sorted by call; one per call (the wait that
/// ended last), each with its look-ahead. Collective over `world`
/// (exchanges along the messages and reductions over the communicators).
WaitPoints find_wait_points(const LocalTrace& trace, const Definitions& definitions,
                            const MessageMatching& matching, const MessageMatching::RouteIndex& routes,
                            CollectiveArrivals& collectives, const TokenPacking& packing,
                            MPI_Comm world);

}  // namespace orrery::analyzer::critical_path

#pragma once
// Internal to the delay analysis (replay_delay.cpp, delay_wait_states.cpp,
// delay_channel.cpp and replay_delay_collectives.cpp): wait states on the
// waiting side, delays on the delaying side, and the comparison of two
// interval profiles.

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include "orrery/trace/chunked_array.h"
#include "orrery/analyzer/communicators.h"
#include "orrery/replay/delay_events.h"
#include "orrery/replay/event_bus.h"
#include "orrery/analyzer/partner_exchange.h"
#include "orrery/analyzer/replay_delay.h"
#include "orrery/analyzer/synchronization_interval.h"
#include "delay_wait_state.h"
#include "orrery/trace/trace.h"

namespace orrery::analyzer::delay {

/// Finds this rank's Late Sender and Late Receiver instances as the
/// patterns do (late_sender.cpp, late_receiver.cpp): one per call, the
/// latest partner counts. `recv_enters`: per send, the receiver's posting
/// time (kNoValue if none). `syncs`, per wait state, where its interval
/// starts on this side: the previous message of the same direction with the
/// delayer (the Leave of its completing call, the own operation; kNone if
/// none), found in the same walk over the completing calls.
std::vector<WaitState> find_wait_states(const LocalTrace& trace, const Definitions& definitions,
                                        const std::vector<int64_t>& recv_enters,
                                        std::vector<std::pair<uint32_t, uint32_t>>& syncs);

/// find_wait_states' way for tables that list each direction's completions
/// in call order (blocking calls and in-order waits do): one merged pass
/// over both tables, no copy of them. False (`waits` and `syncs` to be
/// dropped) as soon as a table is out of order.
bool find_wait_states_in_call_order(const LocalTrace& trace, const Definitions& definitions,
                                    const std::vector<int64_t>& recv_enters,
                                    std::vector<WaitState>& waits,
                                    std::vector<std::pair<uint32_t, uint32_t>>& syncs);

/// find_wait_states' way for any order: each direction's completions sorted
/// by their call first.
std::vector<WaitState> find_wait_states_by_sorting(
    const LocalTrace& trace, const Definitions& definitions, const std::vector<int64_t>& recv_enters,
    std::vector<std::pair<uint32_t, uint32_t>>& syncs);

/// Sorts `items`, which usually come as a few ascending runs (the wait
/// states: Late Sender, Late Receiver, then each communicator's collectives,
/// each in call order), by merging the runs: linear for a few runs, a full
/// sort only when there are many.
template <class T>
void sort_in_runs(std::vector<T>& items) {
  constexpr std::size_t kMostRuns = 16;
  std::vector<std::size_t> ends;  // where each run ends
  for (std::size_t i = 1; i < items.size(); ++i) {
    if (!(items[i] < items[i - 1])) continue;
    ends.push_back(i);
    if (ends.size() >= kMostRuns) {
      std::sort(items.begin(), items.end());
      return;
    }
  }
  if (ends.empty()) return;
  ends.push_back(items.size());
  for (std::size_t k = 1; k < ends.size(); ++k) {
    std::inplace_merge(items.begin(), items.begin() + static_cast<std::ptrdiff_t>(ends[k - 1]),
                       items.begin() + static_cast<std::ptrdiff_t>(ends[k]));
  }
}

/// Definitions::world_rank without a map lookup per message: messages come
/// in runs on the same communicator, so the last one is remembered.
class WorldRanks {
 public:
  WorldRanks(const Definitions& definitions, uint32_t self)
      : definitions_(definitions), self_(self) {}
  uint32_t operator()(uint32_t comm, uint32_t rank_in_comm) {
    if (comm != cached_id_) look_up(comm);
    if (cached_ == nullptr) return kNone;
    if (cached_->is_self) return rank_in_comm == 0 ? self_ : kNone;
    return rank_in_comm < cached_->members.size() ? cached_->members[rank_in_comm] : kNone;
  }

 private:
  void look_up(uint32_t comm);
  const Definitions& definitions_;
  uint32_t self_;
  uint32_t cached_id_ = kNone;
  const CommDef* cached_ = nullptr;
};

/// One side's synchronization events with each peer, for interval starts:
/// per peer, (event index, own operation index) in increasing order.
class SyncPoints {
 public:
  void add(uint32_t peer, uint32_t event, uint32_t op);
  /// Orders each peer's points (usually already in order: a check only).
  void finish();
  /// The last point with `peer` before event `before` ({kNone, kNone} if none):
  /// (event index, own operation index). Fastest when asked in increasing order.
  [[nodiscard]] std::pair<uint32_t, uint32_t> last(uint32_t peer, uint32_t before);

 private:
  std::unordered_map<uint32_t, uint32_t> index_;  ///< peer -> its list (few peers)
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> points_;
  std::vector<std::size_t> hints_;  ///< per list, where the last search ended
  uint32_t last_peer_ = kNone;
  uint32_t last_index_ = 0;
};

/// Per call path: ticks, with the list of the ones set (cleared in O(set)).
class TicksByCallpath {
 public:
  explicit TicksByCallpath(std::size_t callpaths) : ticks_(callpaths, 0) {}
  void set(uint32_t callpath, int64_t ticks) {
    if (ticks_[callpath] == 0) set_.push_back(callpath);
    ticks_[callpath] = ticks;
  }
  [[nodiscard]] int64_t get(uint32_t callpath) const { return ticks_[callpath]; }
  void clear() {
    for (const uint32_t callpath : set_) ticks_[callpath] = 0;
    set_.clear();
  }

 private:
  std::vector<int64_t> ticks_;
  std::vector<uint32_t> set_;
};

/// A wait state another rank suffered because this one was late (the
/// delaying side), with the delay found in the interval: what the rounds
/// read (24 bytes). Its call paths' delays and own wait states are ranges
/// of the DelayPool (DelayRanges; only a passing delay keeps own waits).
struct Delay {
  double excess_waiting = 0;  ///< delay that was own waiting
  double total = 0;           ///< sum of all delay
  /// The waiter's waiting in ticks (its record carries an integer; within
  /// ±2^55, over a year in nanoseconds), the kind and whether it passes
  /// waiting on share one word: millions of delays live through the
  /// propagation rounds, which read each passing one once per round.
  int64_t waiting_ticks : 56 = 0;
  int64_t kind_bits : 7 = 0;
  uint64_t passes_bit : 1 = 0;  ///< total, excess_waiting, own waits' ticks > 0

  [[nodiscard]] double waiting() const { return static_cast<double>(waiting_ticks); }
  [[nodiscard]] WaitKind kind() const { return static_cast<WaitKind>(kind_bits); }
  [[nodiscard]] bool passes() const { return passes_bit != 0; }
};

static_assert(sizeof(Delay) == 24, "delays must stay compact");

/// Where a delay's (own call path, delay) pairs in DelayPool::excess and its
/// (own wait state, ticks) pairs in DelayPool::waits begin (they end where
/// the next delay's begin): apart, the fused rounds never read them.
struct DelayRanges {
  uint32_t excess_begin = 0, waits_begin = 0;
};

// The pool's entries are packed to 4-byte alignment: 12 bytes instead of
// 16 each, millions of them live through the propagation rounds (members
// are read by value only: no reference to a packed member).
#pragma pack(push, 4)
/// One call path's delay in an interval (ticks beyond the waiter's).
struct CallpathDelay {
  uint32_t callpath = 0;
  double ticks = 0;
};

/// One of the delayer's own wait states in the interval.
struct OwnWait {
  uint32_t wait = 0;
  int64_t ticks = 0;
};
#pragma pack(pop)
static_assert(sizeof(CallpathDelay) == 12 && sizeof(OwnWait) == 12, "pool entries stay packed");

/// The delays of one rank, their variable parts in two flat arrays (in
/// chunks: growing never holds two copies).
struct DelayPool {
  std::vector<Delay> delays;
  std::vector<DelayRanges> ranges;  ///< per delay (the same index)
  ChunkedArray<CallpathDelay, 14> excess;
  ChunkedArray<OwnWait, 14> waits;

  /// Adds the delay of this rank against a waiter's profile (`theirs`:
  /// ticks per own call path of the same key, the rest unknown here) as this
  /// rank's profile comes (IntervalProfiler::profile_into): start it, add
  /// each (call path, ticks) of the profile in its order, then finish with
  /// both sides' waiting and this rank's own wait states in the interval;
  /// finish_delay returns its index.
  void start_delay(WaitKind kind, int64_t waiting) {
    pending_kind_ = kind;
    pending_waiting_ = waiting;
    pending_total_ = 0;
    pending_excess_begin_ = static_cast<uint32_t>(excess.size());
  }
  void add_time(uint32_t callpath, int64_t ticks, const TicksByCallpath& theirs) {
    const int64_t other = theirs.get(callpath);
    if (ticks > other) {
      excess.push_back(CallpathDelay{callpath, static_cast<double>(ticks - other)});
      pending_total_ += static_cast<double>(ticks - other);
    }
  }
  uint32_t finish_delay(int64_t mine_waiting, int64_t their_waiting,
                        std::span<const std::pair<uint32_t, int64_t>> own_waits);

  /// Where delay `d`'s ranges in `excess` and in `waits` begin and end.
  [[nodiscard]] uint32_t excess_begin(uint32_t d) const { return ranges[d].excess_begin; }
  [[nodiscard]] uint32_t waits_begin(uint32_t d) const { return ranges[d].waits_begin; }
  [[nodiscard]] uint32_t excess_end(uint32_t d) const {
    return d + 1 < ranges.size() ? ranges[d + 1].excess_begin
                                 : static_cast<uint32_t>(excess.size());
  }
  [[nodiscard]] uint32_t waits_end(uint32_t d) const {
    return d + 1 < ranges.size() ? ranges[d + 1].waits_begin
                                 : static_cast<uint32_t>(waits.size());
  }
  /// The sum of delay `d`'s own waits' ticks, in finish_delay's order (0: none kept).
  [[nodiscard]] int64_t waits_total(uint32_t d) const {
    int64_t sum = 0;
    for (uint32_t w = waits_begin(d), end = waits_end(d); w < end; ++w) sum += waits[w].ticks;
    return sum;
  }

 private:
  // The delay being compared, in plain fields: finish_delay builds the
  // Delay's bit-field word in registers (a byte stored into it stalled).
  WaitKind pending_kind_ = WaitKind::kLateSender;
  int64_t pending_waiting_ = 0;
  double pending_total_ = 0;
  uint32_t pending_excess_begin_ = 0;
};

/// Values along the wait states' records, only between partners: every
/// waiter sends one record per point-to-point wait state to its delayer
/// (variable length, in batches: each partner's records in slices of
/// kBatch, so that no buffer grows with the trace), then one double per
/// record travels either way per call, in the records' order — O(wait
/// states), not O(messages).
class RecordChannel {
 public:
  /// Records per partner and batch.
  static constexpr std::size_t kBatch = std::size_t{1} << 16;
  /// Collective over `world`: this rank has `records[k]` records for
  /// `peers[k]` (ascending); learns who has how many for it, and the number
  /// of batches (the same on every rank).
  void open(const std::vector<uint32_t>& peers, const std::vector<std::size_t>& records,
            MPI_Comm world);
  [[nodiscard]] std::size_t batches() const { return batches_; }
  /// The records [first, last) of a block of `count` records in `batch`.
  [[nodiscard]] static std::pair<std::size_t, std::size_t> slice(std::size_t count,
                                                                std::size_t batch) {
    return {std::min(count, batch * kBatch), std::min(count, (batch + 1) * kBatch)};
  }
  /// Sends a batch without waiting (`requests`; `words` untouched until
  /// wait_sent): `words` (delay_record_format.h) hold per outgoing block
  /// with records in `batch` (ascending peers) its slice, `sizes` words
  /// each, sent in pieces of at most kExchangeBlock words (a block filling
  /// its last piece ends with an empty one). A rank reads a batch
  /// (receive_batch) after sending the next: it may write ahead of its partners.
  void send_batch(std::size_t batch, const std::vector<uint32_t>& words,
                  const std::vector<std::size_t>& sizes, std::vector<MPI_Request>& requests) const;
  static void wait_sent(std::vector<MPI_Request>& requests);
  /// Receives `batch`'s blocks into `received` (grown, never shrunk: one
  /// buffer for all batches), laid out by `in` (its sources, ascending).
  void receive_batch(std::size_t batch, BlockLayout& in, std::vector<uint32_t>& received) const;
  /// per_outgoing[r] for this rank's record r → one value per incoming record.
  [[nodiscard]] std::vector<double> to_delayers(const std::vector<double>& per_outgoing) const;
  /// per_incoming[r] for incoming record r → one value per outgoing record.
  [[nodiscard]] std::vector<double> to_waiters(const std::vector<double>& per_incoming) const;
  [[nodiscard]] std::vector<uint8_t> to_waiters(const std::vector<uint8_t>& per_incoming) const;
  [[nodiscard]] const BlockLayout& outgoing_records() const { return records_out_; }
  [[nodiscard]] const BlockLayout& incoming_records() const { return records_in_; }
  [[nodiscard]] MPI_Comm world() const { return world_; }

 private:
  MPI_Comm world_ = MPI_COMM_NULL;
  BlockLayout records_out_, records_in_;
  std::size_t batches_ = 0;
};

/// The own wait states of one collective instance that passes waiting on
/// (CollectiveDelays::share_targets): each takes share · its ticks / `total`.
struct ShareRun {
  const std::pair<uint32_t, int64_t>* waits = nullptr;  ///< (wait state, ticks)
  uint32_t count = 0;
  uint32_t share = 0;  ///< the index of its share (round_shares)
  double total = 0;    ///< all its own waits' ticks
};

/// The wait states that take the shares of the collective instances passing
/// waiting on, in CollectiveDelays::add_shares' order.
struct CollectiveShareTargets {
  std::vector<ShareRun> runs;
  /// Every wait state once at most, ascending (the rounds' fused pass).
  bool ascending = true;
};

/// A collective instance as a synchronization point of a point-to-point pair.
struct CollectiveSync {
  uint32_t leave = kNone;  ///< Leave index of its completing call
  uint32_t comm = kNone;
  uint32_t ordinal = 0;    ///< its position among the communicator's instances
};

/// The collective half of the delay analysis: Wait at Barrier, Wait at
/// N x N, Late Broadcast, Early Reduce. Every step is collective over each
/// communicator, by reductions of O(1) values per instance plus the
/// delayer's interval profile (bounded by its own events), never O(P).
class CollectiveDelays {
 public:
  CollectiveDelays(const LocalTrace& trace, const Definitions& definitions,
                   const Communicators& comms);
  ~CollectiveDelays();
  CollectiveDelays(const CollectiveDelays&) = delete;
  CollectiveDelays& operator=(const CollectiveDelays&) = delete;
  /// Finds this rank's collective wait states and their delayers; appends
  /// the wait states to `waits`.
  void find_waits(std::vector<WaitState>& waits);
  /// The delayer's interval profile goes to the waiters, who find their
  /// delay against it.
  void compare_intervals(IntervalProfiler& profiler, const CallpathKeys& keys);
  /// One propagation round: the delayers' shares of (waiting + propagated,
  /// per wait state; without `propagated`: of the waiting alone) that their
  /// own waiting explains, added to `to` per wait state of the delayer.
  /// In two halves (a round may add the shares in its own pass): first
  /// the shares, summed over each communicator's members (one per instance
  /// that passes waiting on, in communicator and instance order)...
  void round_shares(const std::vector<WaitState>& waits, const std::vector<double>* propagated,
                    std::vector<double>& shares);
  /// ... then added to `to` per own wait state of the delayer.
  void add_shares(const std::vector<double>& shares, std::vector<double>& to);
  /// The own wait states that take the shares (built on first use).
  const CollectiveShareTargets& share_targets();
  /// Publishes the costs at the delayers' call paths.
  void publish_costs(const std::vector<WaitState>& waits, const std::vector<double>& propagated,
                     const EventBus& bus, DelayStatistics& statistics);
  /// The last collective call before `enter` on a communicator that holds
  /// world rank `peer` (leave kNone if none among the last few), for
  /// point-to-point intervals.
  [[nodiscard]] CollectiveSync last_sync_with(uint32_t peer, uint32_t enter) const;
  /// Whether any collective call (on any communicator) ended after event
  /// `after` and before `enter`. Fastest when asked in increasing order.
  [[nodiscard]] bool any_sync_between(uint32_t after, uint32_t enter) const;
  /// The Leave index of this rank's `ordinal`-th instance on `comm` (kNone if none).
  [[nodiscard]] uint32_t leave_of(uint32_t comm, std::size_t ordinal) const;

 private:
  struct Instance;
  const LocalTrace& trace_;
  const Definitions& definitions_;
  const Communicators& comms_;
  /// Per communicator (id order), the instances replayed there.
  std::vector<std::pair<uint32_t, std::vector<Instance>>> by_comm_;
  /// Per communicator (as by_comm_), the instances that pass waiting on
  /// (ascending; agreed by the members in compare_intervals).
  std::vector<std::vector<uint32_t>> passing_;
  /// Pools of the instances' variable parts (Instance): the delayers'
  /// profiles (call path, ticks), the waiters' excess (profile entry, ticks),
  /// and the delayers' own waits (wait state, ticks) in blocks that never
  /// move (Instance::own_waits points into them; a block of its own for a
  /// range longer than a block).
  std::vector<std::pair<uint32_t, int64_t>> profiles_;
  std::vector<std::pair<uint32_t, double>> excess_;
  std::vector<std::vector<std::pair<uint32_t, int64_t>>> own_wait_blocks_;
  [[nodiscard]] std::span<const std::pair<uint32_t, int64_t>> keep_own_waits(
      const std::vector<std::pair<uint32_t, int64_t>>& waits);
  void select_passing(const std::vector<Instance>& instances, std::size_t first, std::size_t m,
                      MPI_Comm comm, std::vector<uint32_t>& passing);
  /// What round_shares reads per passing instance (in its order), gathered
  /// on its first call: this rank's wait state (kNone: no share), its
  /// waiting, and the fraction of it the delayer's own waiting explains.
  struct RoundInput {
    uint32_t wait = kNone;
    double waiting = 0, fraction = 0;
  };
  std::vector<RoundInput> round_inputs_;
  bool round_inputs_built_ = false;
  void build_round_inputs(const std::vector<WaitState>& waits);
  /// The own wait states of the passing instances, flat (share_targets()).
  CollectiveShareTargets targets_;
  bool targets_built_ = false;
  /// Every collective call (Leave index, comm, ordinal), in order.
  std::vector<CollectiveSync> sync_points_;
  /// Sorted members per communicator (for last_sync_with).
  std::vector<std::pair<uint32_t, std::vector<uint32_t>>> members_;
  /// last_sync_with's memory: where its last search ended, its last answer.
  struct MemberCache {
    uint32_t comm = kNone, peer = kNone;
    bool member = false;
  };
  mutable std::size_t sync_hint_ = 0, between_hint_ = 0;
  mutable MemberCache member_cache_;
};

}  // namespace orrery::analyzer::delay

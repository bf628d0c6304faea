#pragma once
// The analyzer's own trace model: global definitions and one rank's events,
// laid out compactly (16 bytes per event plus small per-message tables) so that
// a rank holds tens of millions of events. Nothing here knows about OTF2.
//
// Only what the replays need is kept as events: region instances that
// contain communication (directly or in a callee) and the communication
// events themselves. A region instance without any (most computation) is
// folded into per-call-path totals as soon as it is left: its times cannot
// change in the replay, because clock corrections shift everything after a
// receive by the same amount.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "orrery/trace/call_tree.h"
#include "orrery/trace/chunked_array.h"
#include "orrery/trace/clock.h"
#include "orrery/trace/ids.h"
#include "orrery/region_kind.h"

namespace orrery::analyzer {

using orrery::Paradigm;    // orrery/region_kind.h
using orrery::RegionRole;  // the reader tells kParallel apart of OpenMP's roles (openmp_analysis.h)

/// The shape of a collective operation, which decides the pattern that applies.
enum class CollectiveKind : uint8_t {
  kBarrier,   ///< MPI_Barrier, MPI_Ibarrier
  kOneToAll,  ///< Bcast, Scatter(v)
  kAllToOne,  ///< Reduce, Gather(v)
  kAllToAll,  ///< Allreduce, Allgather(v), Alltoall(v/w), Reduce_scatter*
  kScan,      ///< Scan
  kExscan,    ///< Exscan
  kOther,     ///< communicator creation and the like: counted, not analyzed
  /// MPI_Init* and MPI_Finalize: not collectives in the trace, but every rank
  /// waits in them for the others; the reader makes each instance one
  /// (init_finalize.h).
  kInit,
  kFinalize,
  /// MPI_Neighbor_* / MPI_Ineighbor_*: OTF2 records them as Allgather(v) /
  /// Alltoall(v/w); the reader tells them apart by region name
  /// (neighbor_collectives.h). A rank waits for its in-neighbours only.
  kNeighbor,
};

/// A region definition.
struct RegionDef {
  std::string name;
  std::string file;
  int32_t line = 0;
  Paradigm paradigm = Paradigm::kOther;
  RegionRole role = RegionRole::kOther;
};

/// A communicator: its members as world ranks, in communicator rank order.
struct CommDef {
  std::string name;
  std::vector<uint32_t> members;
  bool is_self = false;  ///< MPI_COMM_SELF-like: rank 0 is the location itself
};

/// Another thread of a traced rank (an OpenMP worker): its own OTF2 location
/// in the rank's location group.
struct ThreadDef {
  uint64_t location = 0;
  uint32_t number = 0;  ///< 1, 2, ... (0 is the rank's MPI thread)
  std::string name;
};

/// One traced rank: which OTF2 location holds its events, where it ran.
struct RankDef {
  uint64_t location = 0;
  std::string name;
  std::string host;
};

/// The global definitions every analysis rank reads.
struct Definitions {
  std::vector<RegionDef> regions;        ///< indexed by region id
  std::map<uint32_t, CommDef> comms;     ///< by comm id, in id order
  std::vector<RankDef> ranks;            ///< indexed by world rank
  /// Each rank's other threads, by number (indexed by world rank; empty
  /// for a trace without threads).
  std::vector<std::vector<ThreadDef>> threads;
  uint64_t timer_resolution = 1000000000;  ///< ticks per second
  uint64_t global_offset = 0;             ///< tick of the trace's start (clock properties)
  uint64_t trace_length = 0;              ///< ticks from start to end (clock properties)
  /// The archive's global strings by id (for strings events refer to, such
  /// as ProgramBegin's program name); empty for unified incomplete runs.
  std::vector<std::string> strings;
  /// This analysis rank's in-neighbours (communicator ranks) per topology
  /// communicator, by comm id, from EXP/topology/rank-<r>.json; empty if the
  /// measurement recorded none. Not global: each rank reads its own.
  std::map<uint32_t, std::vector<uint32_t>> in_neighbors;

  /// World rank of the member `rank_in_comm` of comm `comm` seen from `self`.
  [[nodiscard]] uint32_t world_rank(uint32_t comm, uint32_t rank_in_comm, uint32_t self) const;
};

/// Event kinds of the in-memory trace (OTF2's MPI event model).
enum class EventKind : uint8_t {
  kEnter, kLeave,
  kSend, kIsend, kIsendComplete,        ///< link = index into LocalTrace::sends
  kRecv, kIrecvRequest, kIrecv,         ///< link = index into LocalTrace::recvs
  kCollectiveBegin, kCollectiveEnd,     ///< link = index into LocalTrace::collectives
  kNbcRequest, kNbcComplete,            ///< link = index into LocalTrace::collectives
};

/// One event, 16 bytes. `ref()` is the call path of an Enter; of a Leave,
/// the index into LocalTrace::folded_child_time (kNone if no callee was
/// folded); kNone for the other kinds. `link` is the matching Leave/Enter
/// index for Enter/Leave and the index into the operation tables for the
/// others. The kind is kept in the top 4 bits of the reference, so references
/// stay below 2^28 - 1. Trivial on purpose: chunks are allocated uninitialized.
struct Event {
  static constexpr unsigned kRefBits = 28;
  static constexpr uint32_t kRefMask = (uint32_t{1} << kRefBits) - 1;
  /// The largest reference an event can hold (kRefMask itself means none).
  static constexpr uint32_t kMaxRef = kRefMask - 1;

  int64_t time;
  uint32_t link;
  uint32_t kind_and_ref;

  [[nodiscard]] static Event make(int64_t time, EventKind kind, uint32_t ref, uint32_t link) {
    Event event;
    event.time = time;
    event.link = link;
    event.kind_and_ref = (static_cast<uint32_t>(kind) << kRefBits) | (ref & kRefMask);
    return event;
  }
  [[nodiscard]] EventKind kind() const { return static_cast<EventKind>(kind_and_ref >> kRefBits); }
  [[nodiscard]] uint32_t ref() const {
    const uint32_t ref = kind_and_ref & kRefMask;
    return ref == kRefMask ? kNone : ref;
  }
  void set_ref(uint32_t ref) { kind_and_ref = (kind_and_ref & ~kRefMask) | (ref & kRefMask); }
};
static_assert(sizeof(Event) == 16, "events must stay compact");

/// One point-to-point message as one side saw it.
struct MessageOp {
  uint32_t post_call = kNone;       ///< Enter index of the call that posted it
  uint32_t complete_call = kNone;   ///< Enter index of the call that completed it
  uint32_t post_event = kNone;      ///< event index of the post
  uint32_t complete_event = kNone;  ///< event index of the completion (receives)
  uint32_t peer = kNone;            ///< rank in the communicator
  uint32_t comm = kNone;
  uint32_t tag = 0;
  bool cancelled = false;           ///< here, in the padding after tag: 40 bytes, not 48
  uint64_t bytes = 0;
};
static_assert(sizeof(MessageOp) == 40, "message tables must stay compact");

/// A receive's times as read (LocalTrace::recv_times).
struct ReceiveTimes {
  int64_t post = 0;                ///< enter of its posting call (posting_call())
  int64_t completion = kNoValue;   ///< of its completion; kNoValue if none or cancelled
};

/// Where a send or receive was posted: the Enter of its posting call (the
/// post event itself if it lies outside any call).
inline uint32_t posting_call(const MessageOp& op) {
  return op.post_call == kNone ? op.post_event : op.post_call;
}

/// A rank's sends or receives, in chunks of 640 KiB.
using MessageTable = ChunkedArray<MessageOp, 14>;

/// One collective instance on this rank: started by one call, completed by
/// the same (blocking) or a later wait (non-blocking).
struct CollectiveOp {
  uint32_t start_call = kNone;
  uint32_t complete_call = kNone;
  uint32_t comm = kNone;
  uint32_t root = kNone;  ///< rank in the communicator, kNone if none
  uint64_t bytes_sent = 0;
  uint64_t bytes_received = 0;
  CollectiveKind kind = CollectiveKind::kOther;
  bool nonblocking = false;
};

/// Events in fixed-size chunks (1 MiB): no doubling reallocation, so peak
/// memory stays close to 16 bytes per kept event.
using EventStore = ChunkedArray<Event, 16>;

/// Region instances of one call path folded while reading.
struct FoldedTotals {
  uint64_t visits = 0;
  int64_t exclusive = 0;  ///< ticks
};

/// A folded callee's exclusive time in the gap before kept event
/// `before_event` (the delay analysis splits a synchronization interval's
/// time over call paths, folded ones included). Consecutive instances of the
/// same call path in one gap share one entry.
struct FoldedSpan {
  uint32_t before_event = 0;
  uint32_t callpath = 0;
  int64_t exclusive = 0;  ///< ticks
};

/// How many messages ahead the per-message loops prefetch their events.
inline constexpr std::size_t kPrefetchDistance = 16;

/// One rank's trace in memory, with its operation tables.
struct LocalTrace {
  uint32_t rank = 0;
  EventStore events;
  MessageTable sends;
  MessageTable recvs;
  std::vector<CollectiveOp> collectives;
  std::vector<ClockOffsetPoint> clock_offsets;
  /// The call tree; Enter `ref`s are its call paths.
  CallTree calltree;
  /// Per call path: the instances folded while reading.
  std::vector<FoldedTotals> folded;
  /// Per kept instance with folded callees (Leave `ref`): their total duration.
  std::vector<int64_t> folded_child_time;
  /// Where the folded instances' time lies between the kept events, in
  /// event order (FoldedSpan).
  std::vector<FoldedSpan> folded_spans;
  /// Whether the reader records folded_spans (set before reading). Only the
  /// delay analysis and the critical path read them: without those, not
  /// recording them saves work per folded instance and memory.
  bool keep_folded_spans = true;
  /// Id of the first of the regions the reader makes for OTF2's measurement
  /// events (buffer flush, measurement off; trace_reader.h), kNone if none.
  uint32_t measurement_regions = kNone;
  bool measurement_regions_used = false;
  /// The producer records its flushes as regions of its own (Orrery's
  /// ORRERY_FLUSH around each BufferFlush event): BufferFlush events are
  /// then skipped, so a flush is not counted twice.
  bool flushes_are_regions = false;
  uint64_t events_read = 0;          ///< every event read, kept or folded
  /// The events came through libotf2, not Orrery's decoder (ORRERY_TRACE_DECODER=otf2,
  /// or a file the decoder does not take: trace/src/otf2_fast_path.h).
  bool read_by_libotf2 = false;
  uint64_t top_level_instances = 0;  ///< region instances with no caller
  uint64_t loose_events = 0;         ///< communication events outside any region
  int64_t folded_top_level_time = 0; ///< total duration of folded top-level instances
  int64_t first_time = 0;            ///< of the first event read
  int64_t last_time = 0;             ///< of the last event read
  /// The messages' times as read, recorded by the reader (TraceBuilder) so
  /// that the clock condition's first pass need not look them up in the
  /// events: per send the enter of its posting call (posting_call()), per
  /// receive its ReceiveTimes. Valid while nothing has moved an event (the
  /// clock condition reads them first, then frees them); empty for a trace
  /// built without TraceBuilder (tests), which the clock condition then
  /// reads from the events.
  ChunkedArray<int64_t, 17> send_post_times;
  ChunkedArray<ReceiveTimes, 16> recv_times;
  /// Per receive: enter time of the matching send call (the forward replay's result).
  std::vector<int64_t> send_enters;
  /// Per send: enter time of the receive's posting call at the receiver (the
  /// forward replay's, when it raises SendsCompleted; empty otherwise). The
  /// delay analysis and the critical path read it instead of exchanging it
  /// again.
  std::vector<int64_t> recv_post_enters;
  bool recv_post_enters_known = false;  ///< set on every rank or on none
  /// The program name of an OTF2 ProgramBegin event ("" if none).
  std::string program_name;
  uint64_t program_events = 0;     ///< ProgramBegin and ProgramEnd events read
  uint64_t unclosed_regions = 0;   ///< Enters without Leave at the end (closed by us)
  uint64_t unmatched_requests = 0; ///< completions without a post, and the like

  /// Time of the Enter `enter_index` and of its matching Leave.
  [[nodiscard]] int64_t enter_time(uint32_t enter_index) const { return events[enter_index].time; }
  [[nodiscard]] int64_t exit_time(uint32_t enter_index) const {
    return events[events[enter_index].link].time;
  }
};

}  // namespace orrery::analyzer

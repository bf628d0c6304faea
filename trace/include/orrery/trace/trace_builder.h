#pragma once
// Builds a LocalTrace from events in time order: puts each event on the
// reference time line (clock offsets), builds the call tree, links
// Enter/Leave, message posts with completions (by request id) and collective
// starts with their completions, and folds region instances without
// communication into per-call-path totals (trace.h). The OTF2 adapter feeds
// it; tests feed it by hand. Clock offsets must be in the trace before the
// builder is made.

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "orrery/trace/trace.h"

namespace orrery::analyzer {

/// Appends events to a LocalTrace and links them as they come.
class TraceBuilder {
 public:
  /// The rank whose trace this builds (for messages).
  [[nodiscard]] uint32_t rank() const { return trace_.rank; }
  explicit TraceBuilder(LocalTrace& trace) : trace_(trace), clock_(trace.clock_offsets) {}
  // top_ points into frames_: a copy would point into the original.
  TraceBuilder(const TraceBuilder&) = delete;
  TraceBuilder& operator=(const TraceBuilder&) = delete;
  TraceBuilder(TraceBuilder&&) = default;

  /// Enter and Leave are most of a trace: inline into the OTF2 callbacks
  /// (always: the compiler would call them). Their common case checks
  /// first and then calls nothing (so the callbacks save no registers);
  /// every other case goes out of line: an Enter whose call path is not in
  /// the known-child cache (which never holds MPI_Init/Finalize's call paths
  /// and is emptied while a ProgramBegin's gap is open) or that needs a new
  /// event chunk or more frames; a Leave that does not match the innermost
  /// frame (the sentinel frame below the outermost one matches no region),
  /// while leave_checks_ is set, that folds or follows a folded callee, or
  /// that needs a new event chunk.
  [[gnu::always_inline]] void enter(int64_t time, uint32_t region) {
    const uint32_t parent = top_->callpath;
    KnownChild& known = known_child(parent, region);
    if (known.parent != parent || known.region != region || top_ == frames_last_ ||
        !trace_.events.has_room()) [[unlikely]] {
      enter_uncached(time, region, known);
      return;
    }
    const int64_t reference = later_reference_time(time);
    const uint32_t callpath = known.callpath;
    Event& event = trace_.events.append_in_room(Event::make(reference, EventKind::kEnter, callpath, kNone));
    const auto index = static_cast<uint32_t>(trace_.events.size() - 1);
    *++top_ = Frame{index, callpath, region, reference, 0, &event};
  }
  /// The common Leave: the innermost frame matches, it keeps its Enter
  /// (not folded) and no callee of it was folded.
  [[gnu::always_inline]] void leave(int64_t time, uint32_t region) {
    Frame& frame = *top_;
    if (frame.region != region || leave_checks_ || frame.folded_child_time != 0 ||
        frame.enter + 1 == trace_.events.size() || !trace_.events.has_room()) [[unlikely]] {
      leave_checked(time, region);
      return;
    }
    const int64_t reference = later_reference_time(time);
    --top_;
    if (no_open_region()) ++trace_.top_level_instances;
    frame.enter_event->link = static_cast<uint32_t>(trace_.events.size());
    trace_.events.append_in_room(Event::make(reference, EventKind::kLeave, kNone, frame.enter));
  }
  /// Blocking sends and receives: inline too. The common case (inside a
  /// region, room in every table the message goes to) checks first and
  /// then appends without further checks; the rest goes to send_checked /
  /// recv_checked.
  [[gnu::always_inline]] void send(int64_t time, uint32_t receiver, uint32_t comm, uint32_t tag, uint64_t bytes) {
    if (no_open_region() || !trace_.events.has_room() || !trace_.sends.has_room() ||
        !trace_.send_post_times.has_room()) [[unlikely]] {
      send_checked(time, receiver, comm, tag, bytes);
      return;
    }
    const auto index = static_cast<uint32_t>(trace_.sends.size());
    const uint32_t event = append_message_event(time, EventKind::kSend, index);
    trace_.sends.append_in_room(in_call_message(event, receiver, comm, tag, bytes));
    trace_.send_post_times.append_in_room(top_->enter_time);
  }
  [[gnu::noinline]] void send_checked(int64_t time, uint32_t receiver, uint32_t comm, uint32_t tag, uint64_t bytes) {
    trace_.sends.push_back(blocking_message(time, EventKind::kSend, trace_.sends.size(), receiver, comm, tag, bytes));
    trace_.send_post_times.push_back(posting_time());
  }
  void isend(int64_t time, uint32_t receiver, uint32_t comm, uint32_t tag, uint64_t bytes,
             uint64_t request);
  void isend_complete(int64_t time, uint64_t request);
  [[gnu::always_inline]] void recv(int64_t time, uint32_t sender, uint32_t comm, uint32_t tag, uint64_t bytes) {
    if (no_open_region() || !trace_.events.has_room() || !trace_.recvs.has_room() ||
        !trace_.recv_times.has_room()) [[unlikely]] {
      recv_checked(time, sender, comm, tag, bytes);
      return;
    }
    const auto index = static_cast<uint32_t>(trace_.recvs.size());
    const uint32_t event = append_message_event(time, EventKind::kRecv, index);
    MessageOp& op = trace_.recvs.append_in_room(in_call_message(event, sender, comm, tag, bytes));
    op.complete_event = event;
    trace_.recv_times.append_in_room(ReceiveTimes{top_->enter_time, trace_.last_time});
  }
  [[gnu::noinline]] void recv_checked(int64_t time, uint32_t sender, uint32_t comm, uint32_t tag, uint64_t bytes) {
    MessageOp op = blocking_message(time, EventKind::kRecv, trace_.recvs.size(), sender, comm, tag, bytes);
    op.complete_event = op.post_event;
    trace_.recvs.push_back(op);
    trace_.recv_times.push_back(ReceiveTimes{posting_time(), trace_.last_time});
  }
  void irecv_request(int64_t time, uint64_t request);
  void irecv(int64_t time, uint32_t sender, uint32_t comm, uint32_t tag, uint64_t bytes,
             uint64_t request);
  void request_cancelled(uint64_t request);
  /// Inside an MPI_Init/MPI_Finalize instance (synchronize_in) these are
  /// ignored: the instance is one collective of its own kind already.
  void collective_begin(int64_t time);
  void collective_end(int64_t time, CollectiveKind kind, uint32_t comm, uint32_t root,
                      uint64_t sent, uint64_t received);
  void nbc_request(int64_t time, uint64_t request);
  void nbc_complete(int64_t time, CollectiveKind kind, uint32_t comm, uint32_t root,
                    uint64_t sent, uint64_t received, uint64_t request);

  /// OTF2 BufferFlush: the measurement flushed its buffer from `time` to
  /// `stop`; recorded as an instance of the flush region (overhead).
  void buffer_flush(int64_t time, int64_t stop);
  /// OTF2 MeasurementOnOff: recording off opens an instance of the
  /// measurement-off region, on closes it (so does leaving its caller).
  void measurement(int64_t time, bool on);

  /// OTF2 ProgramBegin / ProgramEnd: the program's own begin and end. They
  /// extend the trace's time span; time between them and the outermost
  /// regions counts as time outside any region (a program root is needed).
  void program_begin(int64_t time, const std::string& program_name);
  void program_end(int64_t time);

  /// Makes every instance of `region` a collective instance of `kind` over
  /// `comm`: a CollectiveBegin right after its Enter and a CollectiveEnd
  /// right before its Leave (MPI_Init and MPI_Finalize, init_finalize.h).
  void synchronize_in(uint32_t region, CollectiveKind kind, uint32_t comm);

  /// Collectives started in `region` are neighbourhood collectives: their
  /// kind becomes kNeighbor whatever OTF2 operation they record.
  void neighborhood_in(uint32_t region);

  /// Closes regions left open (a truncated trace); call once at the end.
  void finish();

 private:
  /// An open region instance.
  struct Frame {
    uint32_t enter;            ///< index of its Enter
    uint32_t callpath;
    uint64_t region;           ///< (at hand for the Leave's check; kNoRegion: the sentinel)
    int64_t enter_time;        ///< reference time of its Enter
    int64_t folded_child_time; ///< total duration of its folded callees
    Event* enter_event;        ///< its Enter (chunks never move; the sentinel's: none)
  };

  /// (parent, region) -> call path lookups seen recently, direct-mapped by a
  /// hash of the pair: a loop enters the same few callees in turn, so most
  /// Enters find their call path here instead of in the call tree.
  struct KnownChild {
    uint32_t parent = kNone - 1;  ///< no call path's id: an empty entry matches nothing
    uint32_t region = kNone;
    uint32_t callpath = kNone;
  };
  static constexpr unsigned kKnownChildBits = 10;
  /// The sentinel frame's region: wider than any region id.
  static constexpr uint64_t kNoRegion = uint64_t{1} << 32;

  /// The sentinel frame (below the outermost open region) has Enter and call path kNone.
  uint32_t current_call() const { return top_->enter; }
  [[nodiscard]] bool no_open_region() const { return top_ == frames_.data(); }
  [[nodiscard]] std::size_t open_regions() const { return static_cast<std::size_t>(top_ - frames_.data()); }
  /// The event's time on the reference time line. Events of one location
  /// come in time order; a clock that steps back by a few ticks is clamped
  /// rather than rejected.
  [[gnu::always_inline]] int64_t reference_time(int64_t local) {
    if (trace_.events_read == 0) {
      ++trace_.events_read;
      trace_.first_time = trace_.last_time = clock_(local);
      return trace_.last_time;
    }
    return later_reference_time(local);
  }
  /// reference_time() of an event after the first: a cached Enter (the
  /// first Enter is never cached) and a Leave that matches an open frame.
  [[gnu::always_inline]] int64_t later_reference_time(int64_t local) {
    ++trace_.events_read;
    const int64_t time = std::max(clock_(local), trace_.last_time);
    trace_.last_time = time;
    return time;
  }
  /// The time of the call posting a message whose event was just appended:
  /// the innermost open call's enter, or that event's own time outside any
  /// call (LocalTrace::send_post_times, recv_times).
  [[nodiscard]] int64_t posting_time() const {
    return no_open_region() ? trace_.last_time : top_->enter_time;
  }
  /// Appends a communication event (any kind but Enter/Leave).
  uint32_t push_communication(int64_t local_time, EventKind kind, uint32_t link) {
    if (no_open_region()) ++trace_.loose_events;
    return trace_.events.push_back(Event::make(reference_time(local_time), kind, kNone, link));
  }
  [[gnu::always_inline]] KnownChild& known_child(uint32_t parent, uint32_t region) {
    const uint32_t hash = (parent * 0x9E3779B1U) ^ (region * 0x85EBCA77U);
    return known_children_[hash >> (32 - kKnownChildBits)];
  }
  /// Appends an Enter at `reference` and opens its frame.
  [[gnu::always_inline]] void open_frame(int64_t reference, uint32_t region, uint32_t callpath) {
    Event& event = trace_.events.append(Event::make(reference, EventKind::kEnter, callpath, kNone));
    const auto index = static_cast<uint32_t>(trace_.events.size() - 1);
    if (top_ == frames_last_) [[unlikely]] grow_frames();
    *++top_ = Frame{index, callpath, region, reference, 0, &event};
  }
  /// Enter whose call path the cache does not know (or must not answer).
  [[gnu::cold, gnu::noinline]] void enter_uncached(int64_t time, uint32_t region, KnownChild& known);
  /// Leave with every check (and its rare cases).
  /// (Not cold: most Leaves of a computation-heavy trace fold their instance.)
  [[gnu::noinline]] void leave_checked(int64_t time, uint32_t region);
  [[gnu::cold]] void grow_frames();
  /// Empties the known-child cache (every Enter goes through enter_uncached once).
  void forget_known_children();
  void update_leave_checks() { leave_checks_ = synchronizing_open_ != kNone || open_off_instances_ > 0; }
  [[gnu::cold]] void end_program_begin_gap(int64_t reference);
  [[gnu::cold]] void open_synchronizing(int64_t time);
  [[gnu::cold]] void close_synchronizing(int64_t time, uint32_t region);
  [[gnu::cold]] void close_off_instances(int64_t reference, uint32_t region);
  [[noreturn, gnu::cold]] void throw_leave_without_enter() const;
  [[noreturn, gnu::cold]] void throw_mismatched_leave(uint32_t region, uint32_t open_region) const;
  void open_collective(int64_t time);
  void finish_collective(int64_t time, CollectiveKind kind, uint32_t comm, uint32_t root,
                         uint64_t sent, uint64_t received);
  /// The open collective is the one an MPI_Init/MPI_Finalize instance opened.
  [[nodiscard]] bool inside_synchronizing() const;
  /// A blocking send's or receive's message, its event appended (`index`:
  /// its entry in the sends or receives).
  MessageOp blocking_message(int64_t time, EventKind kind, std::size_t index, uint32_t peer,
                             uint32_t comm, uint32_t tag, uint64_t bytes) {
    MessageOp op;
    op.post_call = op.complete_call = current_call();
    op.peer = peer;
    op.comm = comm;
    op.tag = tag;
    op.bytes = bytes;
    op.post_event = push_communication(time, kind, static_cast<uint32_t>(index));
    return op;
  }
  /// send()'s and recv()'s common case: the message's event, appended in
  /// room inside an open region (so not the first event read); its index.
  [[gnu::always_inline]] uint32_t append_message_event(int64_t time, EventKind kind, uint32_t index) {
    const auto event = static_cast<uint32_t>(trace_.events.size());
    trace_.events.append_in_room(Event::make(later_reference_time(time), kind, kNone, index));
    return event;
  }
  /// A blocking message posted and completed by the innermost open call at `event`.
  [[gnu::always_inline]] MessageOp in_call_message(uint32_t event, uint32_t peer, uint32_t comm, uint32_t tag,
                                                   uint64_t bytes) const {
    MessageOp op;
    op.post_call = op.complete_call = top_->enter;
    op.post_event = event;
    op.peer = peer;
    op.comm = comm;
    op.tag = tag;
    op.bytes = bytes;
    return op;
  }
  /// Leaves the innermost open region at `leave_time` (reference time line):
  /// folds the instance if nothing inside it was kept, else appends its Leave.
  void close_region(int64_t leave_time, uint32_t region) {
    const Frame frame = *top_--;
    if (frame.region != region) throw_mismatched_leave(region, static_cast<uint32_t>(frame.region));
    if (open_off_instances_ > 0) note_off_instance_closed(region);
    const int64_t duration = leave_time - frame.enter_time;
    if (no_open_region()) ++trace_.top_level_instances;
    if (frame.enter + 1 == trace_.events.size()) {
      fold(frame, duration);
      return;
    }
    const uint32_t folded_ref =
        frame.folded_child_time != 0 ? note_folded_child_time(frame.folded_child_time) : kNone;
    frame.enter_event->link =
        trace_.events.push_back(Event::make(leave_time, EventKind::kLeave, folded_ref, frame.enter));
  }
  /// Adds a folded instance to its call path's totals and drops its events.
  void fold(const Frame& frame, int64_t duration);
  [[gnu::cold]] void note_off_instance_closed(uint32_t region);
  /// Keeps a kept instance's folded callees' time; returns its reference.
  uint32_t note_folded_child_time(int64_t folded_child_time);
  /// Notes a folded instance's exclusive time in the gap before `before_event`.
  void record_folded_span(uint32_t before_event, uint32_t callpath, int64_t exclusive);

  LocalTrace& trace_;
  ClockMapping clock_;
  /// Open frames from [1] on; [0] is the sentinel (top_ there: none open).
  std::vector<Frame> frames_ = std::vector<Frame>(64, Frame{kNone, kNone, kNoRegion, 0, 0, nullptr});
  Frame* top_ = frames_.data();
  Frame* frames_last_ = frames_.data() + frames_.size() - 1;
  std::array<KnownChild, std::size_t{1} << kKnownChildBits> known_children_{};
  std::unordered_map<uint64_t, uint32_t> pending_isends_;
  std::unordered_map<uint64_t, uint32_t> pending_irecvs_;
  std::unordered_map<uint64_t, uint32_t> pending_nbcs_;
  uint32_t open_collective_ = kNone;
  uint32_t open_off_instances_ = 0;  ///< measurement-off instances open (measurement())
  /// A Leave must take leave_checked: synchronizing_open_ or open_off_instances_ set.
  bool leave_checks_ = false;
  /// Regions whose instances are collectives of their own (synchronize_in),
  /// indexed by region id; kOther for the others.
  struct Synchronizing {
    CollectiveKind kind = CollectiveKind::kOther;
    uint32_t comm = kNone;
  };
  std::vector<Synchronizing> synchronizing_;
  uint32_t synchronizing_open_ = kNone;  ///< collective opened by such a region's Enter
  /// The kind of a collective started at Enter `start_call` recorded as `kind`.
  CollectiveKind kind_of(uint32_t start_call, CollectiveKind kind) const;
  /// Completes `op` at the current call (blocking or non-blocking alike).
  void complete_collective(CollectiveOp& op, CollectiveKind kind, uint32_t comm, uint32_t root,
                           uint64_t sent, uint64_t received) const;
  std::vector<bool> neighborhood_regions_;  ///< by region id (neighborhood_in)
  /// Time of a ProgramBegin outside any region not yet followed by an Enter.
  int64_t program_begin_pending_ = INT64_MIN;
};

}  // namespace orrery::analyzer

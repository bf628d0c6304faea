// Forward replay. Each message's send enter time travels from the sender to
// the receiver (message_exchange.h: matched per communicator, peer and tag in
// MPI's order). Clock-condition violations are then corrected: a receive that
// completes before its send began is moved to the send's enter, and every
// later event of that rank by the same amount. Because a correction moves the
// receiver's later sends too, exchange and correction repeat until no rank's
// corrections change (a fixpoint; each round settles one more link of a
// chain of violations). Finally the events are walked in order and the
// replay events are raised for the patterns; with raise_sends_completed the
// receives' posting times first travel back to the senders, so that the
// walk raises the backward replay's SendsCompleted too.

#include <algorithm>
#include <utility>
#include <vector>

#include "forward_wait_states.h"
#include "orrery/analyzer/message_exchange.h"
#include "orrery/analyzer/replay.h"
#include "orrery/replay/replay_events.h"
#include "vmpi.h"

namespace orrery::analyzer {
namespace {

constexpr int kMaxCorrectionRounds = 64;

/// From event `index` on, a rank's events move by `shift` (cumulative).
struct ShiftPoint {
  uint32_t index;
  int64_t shift;
  bool operator==(const ShiftPoint&) const = default;
};

int64_t shift_at(const std::vector<ShiftPoint>& points, uint32_t index) {
  auto it = std::upper_bound(points.begin(), points.end(), index,
                             [](uint32_t i, const ShiftPoint& p) { return i < p.index; });
  return it == points.begin() ? 0 : std::prev(it)->shift;
}

/// The corrections this rank needs given the send enter times of its
/// receives; `by_completion` lists the receives in completion order.
std::vector<ShiftPoint> corrections(const LocalTrace& trace, const std::vector<uint32_t>& by_completion,
                                    const std::vector<int64_t>& send_enters) {
  std::vector<ShiftPoint> points;
  int64_t shift = 0;
  for (std::size_t k = 0; k < by_completion.size(); ++k) {
    // Receives are in completion order: prefetch the one kPrefetchDistance on.
    if (k + kPrefetchDistance < by_completion.size()) {
      trace.events.prefetch(trace.recvs[by_completion[k + kPrefetchDistance]].complete_event);
    }
    const uint32_t r = by_completion[k];
    const int64_t send_enter = send_enters[r];
    if (send_enter == kNoValue) continue;
    const uint32_t index = trace.recvs[r].complete_event;
    const int64_t time = trace.events[index].time + shift;
    if (time < send_enter) {
      shift += send_enter - time;
      points.push_back(ShiftPoint{index, shift});
    }
  }
  return points;
}

/// The receives that completed, in completion order.
std::vector<uint32_t> receives_in_completion_order(const LocalTrace& trace) {
  std::vector<uint32_t> by_completion;
  trace.recvs.for_each([&](uint32_t r, const MessageOp& op) {
    if (op.complete_event != kNone) by_completion.push_back(r);
  });
  const auto by_event = [&](uint32_t a, uint32_t b) {
    return trace.recvs[a].complete_event < trace.recvs[b].complete_event;
  };
  if (!std::is_sorted(by_completion.begin(), by_completion.end(), by_event)) {
    std::sort(by_completion.begin(), by_completion.end(), by_event);
  }
  return by_completion;
}

/// Enter times of the sends' posting calls, as corrected so far.
std::vector<int64_t> send_enter_times(const LocalTrace& trace, const std::vector<ShiftPoint>& points) {
  std::vector<int64_t> values(trace.sends.size());
  for (std::size_t i = 0; i < trace.sends.size(); ++i) {
    if (i + kPrefetchDistance < trace.sends.size()) {
      const MessageOp& later = trace.sends[i + kPrefetchDistance];
      trace.events.prefetch(later.post_call == kNone ? later.post_event : later.post_call);
    }
    const MessageOp& op = trace.sends[i];
    const uint32_t index = op.post_call == kNone ? op.post_event : op.post_call;
    values[i] = trace.events[index].time + (points.empty() ? 0 : shift_at(points, index));
  }
  return values;
}

/// The open region instances during the walk.
struct Frame {
  CallPathCounts* counts = nullptr;  ///< its call path's (the sentinel's: not reported)
  uint32_t callpath = kNone;
  uint32_t enter_event = kNone;  ///< its Enter's index (a blocking receive's posting call)
  int64_t enter = 0;
  int64_t child_time = 0;
  uint64_t bytes = 0;
  uint32_t messages = 0;
  uint32_t receives = 0;
  int64_t latest_send_enter = INT64_MIN;
  uint32_t sends_completed = 0;  ///< with a matching receive (raise_sends_completed)
  int64_t latest_recv_enter = INT64_MIN;
};

/// A send the frame's call completed, with its receive's posting time.
void note_completed_send(Frame& frame, int64_t recv_enter) {
  if (recv_enter == kNoValue) return;
  frame.latest_recv_enter = std::max(frame.latest_recv_enter, recv_enter);
  ++frame.sends_completed;
}

/// Makes room in `counts` for call path `callpath` (the last entry stays the
/// sentinel's) and points the open frames `first`..`top` at the moved entries.
[[gnu::noinline]] void grow_counts(std::vector<CallPathCounts>& counts, uint32_t callpath, Frame* first,
                                   Frame* top) {
  const CallPathCounts* old_data = counts.data();
  const std::size_t old_size = counts.size();
  const CallPathCounts sentinel = counts.back();
  counts.back() = CallPathCounts{};
  if (std::size_t{callpath} + 2 > old_size) counts.resize(std::size_t{callpath} + 2);
  counts.back() = sentinel;
  for (Frame* frame = first; frame <= top; ++frame) {
    const std::size_t at = static_cast<std::size_t>(frame->counts - old_data);
    frame->counts = at == old_size - 1 ? &counts.back() : &counts[at];
  }
}

/// Raises the replay events in time order (corrected times), then the totals
/// of the region instances folded while reading and the counts per call path
/// (CallPathCounts: visits and messages, not raised per event). The
/// subscribers are looked up once; an event nobody subscribed to is not
/// built. With `recv_enters` (per send, its receive's posting time) each call
/// that completed sends raises SendsCompleted at its Leave, as
/// replay_backward would. kCollect: `collector` also collects the delay
/// analysis' wait states (needs `recv_enters`).
template <bool kCollect>
void walk(const LocalTrace& trace, const std::vector<int64_t>& send_enters,
          const std::vector<int64_t>* recv_enters, const EventBus& bus,
          delay::ForwardWaitStates* collector) {
  const auto sends_completed = bus.publisher<SendsCompleted>();
  const auto region_exited = bus.publisher<RegionExited>();
  const auto receives_completed = bus.publisher<ReceivesCompleted>();
  const auto message_received = bus.publisher<MessageReceived>();
  const EventStore& events = trace.events;
  // Per call path; the open frames point at theirs (counts.back() is the
  // sentinel's, not reported).
  std::vector<CallPathCounts> counts(std::max(trace.calltree.size(), trace.folded.size()) + 1);
  // The open instances from frames[1] on; frames[0] is a sentinel below the
  // outermost one (call path kNone, never left), which takes what happens
  // outside any region (loose messages, the outermost instances' durations)
  // without a check for an empty stack.
  std::vector<Frame> frames(64);
  Frame* top = frames.data();
  top->counts = &counts.back();
  CallPathCounts* counted = counts.data();  // counts[0, known): the call paths'
  std::size_t known = counts.size() - 1;
  events.for_each([&](uint32_t index, const Event& event) {
    // Enter and Leave are most events: tested first, before the jump table.
    const EventKind kind = event.kind();
    if (kind == EventKind::kEnter) {
      if (top == &frames.back()) [[unlikely]] {
        const std::size_t depth = static_cast<std::size_t>(top - frames.data());
        frames.resize(2 * frames.size());
        top = frames.data() + depth;
      }
      const uint32_t callpath = event.ref();
      CallPathCounts* at = nullptr;
      if (callpath < known) [[likely]] {
        at = counted + callpath;
      } else {  // kNone too
        grow_counts(counts, callpath == kNone ? 0 : callpath, frames.data(), top);
        counted = counts.data();
        known = counts.size() - 1;
        at = callpath == kNone ? &counts.back() : counted + callpath;
      }
      *++top = Frame{at, callpath, index, event.time};
      return;
    }
    if (kind == EventKind::kLeave) {
      const Frame& frame = *top;
      if constexpr (kCollect) collector->left(frame.enter_event, index, frame.enter, event.time, frame.callpath);
      const CallContext call{frame.callpath, frame.enter, event.time};
      const int64_t duration = event.time - frame.enter;
      if (frame.receives > 0) {
        receives_completed(ReceivesCompleted{call, frame.latest_send_enter, frame.receives});
      }
      if (frame.sends_completed > 0) {
        sends_completed(SendsCompleted{call, frame.latest_recv_enter, frame.sends_completed,
                                       frame.latest_send_enter});
      }
      const uint32_t folded_ref = event.ref();
      const int64_t folded = folded_ref == kNone ? 0 : trace.folded_child_time[folded_ref];
      region_exited(RegionExited{call, duration - frame.child_time - folded, frame.bytes,
                                 frame.messages});
      ++frame.counts->visits;
      --top;
      top->child_time += duration;
      return;
    }
    switch (kind) {
      case EventKind::kSend:
      case EventKind::kIsend: {
        const MessageOp& op = trace.sends[event.link];
        if constexpr (kCollect) {
          if (kind == EventKind::kSend) collector->sent(top->enter_event, event.link, op, (*recv_enters)[event.link]);
        }
        if (op.cancelled) break;
        Frame& frame = *top;
        frame.bytes += op.bytes;
        ++frame.messages;
        ++frame.counts->sends;
        frame.counts->bytes_sent += op.bytes;
        // A blocking send completes in the call that posted it.
        if (recv_enters != nullptr && event.kind() == EventKind::kSend) {
          note_completed_send(frame, (*recv_enters)[event.link]);
        }
        break;
      }
      case EventKind::kIsendComplete:
        if constexpr (kCollect) {
          collector->sent(top->enter_event, event.link, trace.sends[event.link], (*recv_enters)[event.link]);
        }
        if (recv_enters != nullptr) note_completed_send(*top, (*recv_enters)[event.link]);
        break;
      case EventKind::kRecv:
      case EventKind::kIrecv: {
        const MessageOp& op = trace.recvs[event.link];
        const int64_t send_enter = send_enters[event.link];
        if constexpr (kCollect) collector->received(top->enter_event, event.link, op, send_enter);
        if (op.cancelled || send_enter == kNoValue) break;
        Frame& frame = *top;
        frame.bytes += op.bytes;
        ++frame.messages;
        ++frame.receives;
        frame.latest_send_enter = std::max(frame.latest_send_enter, send_enter);
        ++frame.counts->receives;
        frame.counts->bytes_received += op.bytes;
        if (!message_received.active() || top == frames.data()) break;  // none for loose receives
        const uint32_t post = op.post_call != kNone ? op.post_call : op.post_event;
        const int64_t post_enter = post == frame.enter_event || post == kNone ? frame.enter : events[post].time;
        message_received(MessageReceived{frame.callpath, frame.enter, send_enter, op.bytes, post_enter});
        break;
      }
      default:
        break;
    }
  });
  const auto region_totals = bus.publisher<RegionTotals>();
  for (uint32_t callpath = 0; callpath < trace.folded.size(); ++callpath) {
    const FoldedTotals& totals = trace.folded[callpath];
    if (totals.visits > 0) region_totals(RegionTotals{callpath, totals.visits, totals.exclusive});
  }
  const auto callpath_counts = bus.publisher<CallPathCounts>();
  for (uint32_t callpath = 0; callpath + 1 < counts.size(); ++callpath) {
    CallPathCounts& at = counts[callpath];
    if (at.visits == 0 && at.sends == 0 && at.receives == 0) continue;
    at.callpath = callpath;
    callpath_counts(at);
  }
}

/// The walk once the times are final; with raise_sends_completed the
/// receives' posting times (`post_enters` if known on these times, empty
/// otherwise) travel to the senders first (collective), and the walk returns
/// them (per send; empty without raise_sends_completed). With
/// raise_sends_completed and ReplayOptions::wait_states the walk also
/// collects the delay analysis' wait states (forward_wait_states.h).
std::vector<int64_t> walk_with_final_times(const LocalTrace& trace, const MessageMatching& matching,
                                           MPI_Comm world, const std::vector<int64_t>& send_enters,
                                           std::vector<int64_t> post_enters, const EventBus& bus,
                                           const ReplayOptions& options) {
  if (options.wait_states != nullptr) *options.wait_states = delay::HandedWaitStates{};
  if (!options.raise_sends_completed) {
    walk<false>(trace, send_enters, nullptr, bus, nullptr);
    return {};
  }
  if (post_enters.size() != trace.recvs.size()) post_enters = receive_post_enters(trace);
  std::vector<int64_t> recv_enters = matching.to_senders(post_enters, world);
  post_enters = std::vector<int64_t>();  // not needed during the walk
  if (options.wait_states == nullptr || options.definitions == nullptr) {
    walk<false>(trace, send_enters, &recv_enters, bus, nullptr);
    return recv_enters;
  }
  delay::ForwardWaitStates collector(trace, *options.definitions, *options.wait_states);
  walk<true>(trace, send_enters, &recv_enters, bus, &collector);
  collector.finish();
  return recv_enters;
}

}  // namespace

void collect_wait_states_by_walk(const LocalTrace& trace, const std::vector<int64_t>& recv_enters,
                                 const Definitions& definitions, delay::HandedWaitStates& out) {
  const EventBus nobody;
  delay::ForwardWaitStates collector(trace, definitions, out);
  walk<true>(trace, trace.send_enters, &recv_enters, nobody, &collector);
  collector.finish();
}

void replay_forward(LocalTrace& trace, const MessageMatching& matching, MPI_Comm world,
                    const EventBus& bus, const ReplayOptions& options,
                    ReplayStatistics& statistics) {
  std::vector<ShiftPoint> points;
  std::vector<int64_t> send_enters;
  // Only the corrections need the receives in completion order.
  std::vector<uint32_t> by_completion;
  if (options.correct_clock_violations) by_completion = receives_in_completion_order(trace);
  const bool known = !options.correct_clock_violations && options.known_times != nullptr;
  std::vector<int64_t> post_enters;
  if (known) {
    send_enters = std::move(options.known_times->send_enters);
    post_enters = std::move(options.known_times->post_enters);
  }
  for (int round = 0; round < kMaxCorrectionRounds && !known; ++round) {
    send_enters = matching.to_receivers(send_enter_times(trace, points), world);
    if (!options.correct_clock_violations) break;
    std::vector<ShiftPoint> updated = corrections(trace, by_completion, send_enters);
    int changed = updated != points ? 1 : 0;
    points = std::move(updated);
    int any_changed = 0;
    vmpi::Allreduce(&changed, &any_changed, 1, MPI_INT, MPI_MAX, world);
    if (any_changed == 0) break;
  }
  // Apply the corrections in place.
  statistics.messages += matching.matched_recvs();
  if (points.empty()) {
    trace.recv_post_enters =
        walk_with_final_times(trace, matching, world, send_enters, std::move(post_enters), bus, options);
    trace.recv_post_enters_known = options.raise_sends_completed;
    trace.send_enters = std::move(send_enters);
    return;
  }
  std::size_t next = 0;
  int64_t shift = 0, previous = 0;
  for (std::size_t i = 0; i < trace.events.size(); ++i) {
    if (next < points.size() && points[next].index == i) {
      shift = points[next].shift;
      statistics.max_violation = std::max(statistics.max_violation, shift - previous);
      previous = shift;
      ++next;
    }
    trace.events[i].time += shift;
  }
  statistics.clock_violations += points.size();
  trace.recv_post_enters = walk_with_final_times(trace, matching, world, send_enters, {}, bus, options);
  trace.recv_post_enters_known = options.raise_sends_completed;
  trace.send_enters = std::move(send_enters);
}

}  // namespace orrery::analyzer

// Backward replay: the enter time of each receive's posting call travels
// back to the sender of the matching message (message_exchange.h), and each
// call that completed sends learns its latest receiver. Times are final here
// (after the forward replay's corrections).

#include <algorithm>
#include <utility>
#include <vector>

#include "orrery/analyzer/message_exchange.h"
#include "orrery/analyzer/replay.h"
#include "orrery/replay/replay_events.h"

namespace orrery::analyzer {

std::vector<int64_t> receive_post_enters(const LocalTrace& trace) {
  const EventStore& events = trace.events;
  std::vector<int64_t> post_enters;
  post_enters.reserve(trace.recvs.size());
  trace.recvs.for_each([&](uint32_t r, const MessageOp& op) {
    if (r + kPrefetchDistance < trace.recvs.size()) events.prefetch(receive_post(trace.recvs[r + kPrefetchDistance]));
    post_enters.push_back(events[receive_post(op)].time);
  });
  return post_enters;
}

std::vector<int64_t> receive_post_enters_at_senders(const LocalTrace& trace,
                                                    const MessageMatching& matching, MPI_Comm world) {
  if (trace.recv_post_enters_known) return trace.recv_post_enters;
  return matching.to_senders(receive_post_enters(trace), world);
}

void replay_backward(const LocalTrace& trace, const MessageMatching& matching, MPI_Comm world,
                     const EventBus& bus) {
  const EventStore& events = trace.events;
  const std::vector<int64_t> recv_enters = matching.to_senders(receive_post_enters(trace), world);

  // A call that also completed receives (Sendrecv, a Waitall over Irecvs and
  // Isends) waited for its late senders first; Late Receiver starts after.
  // (completing call, send enter) per receive, in call order: a flat array
  // walked alongside the sends below instead of a hash map per receive.
  using CallValue = std::pair<uint32_t, int64_t>;
  const auto by_call = [](const CallValue& a, const CallValue& b) { return a.first < b.first; };
  std::vector<CallValue> receive_calls;
  receive_calls.reserve(trace.recvs.size());
  trace.recvs.for_each([&](uint32_t r, const MessageOp& op) {
    if (r >= trace.send_enters.size() || op.complete_call == kNone) return;
    if (trace.send_enters[r] != kNoValue) receive_calls.emplace_back(op.complete_call, trace.send_enters[r]);
  });
  if (!std::is_sorted(receive_calls.begin(), receive_calls.end(), by_call)) {
    std::sort(receive_calls.begin(), receive_calls.end(), by_call);
  }

  // (completing call, receive enter) per send, in call order: for a Waitall
  // over several sends the latest receiver counts. Blocking sends complete
  // where they were posted: usually already in order.
  std::vector<CallValue> send_calls;
  send_calls.reserve(trace.sends.size());
  trace.sends.for_each([&](uint32_t s, const MessageOp& op) {
    if (recv_enters[s] != kNoValue && op.complete_call != kNone) {
      send_calls.emplace_back(op.complete_call, recv_enters[s]);
    }
  });
  if (!std::is_sorted(send_calls.begin(), send_calls.end(), by_call)) {
    std::stable_sort(send_calls.begin(), send_calls.end(), by_call);
  }

  const auto sends_completed = bus.publisher<SendsCompleted>();
  std::size_t next_receive = 0;
  for (std::size_t k = 0; k < send_calls.size();) {
    const uint32_t call = send_calls[k].first;
    // Two lookups per call (its Enter, then its Leave through the Enter's
    // link): prefetch the Enter far ahead and the Leave of a nearer one, whose
    // Enter the earlier prefetch has brought in.
    if (k + kPrefetchDistance < send_calls.size()) events.prefetch(send_calls[k + kPrefetchDistance].first);
    if (k + kPrefetchDistance / 2 < send_calls.size()) {
      const uint32_t leave = events[send_calls[k + kPrefetchDistance / 2].first].link;
      if (leave < events.size()) events.prefetch(leave);
    }
    const Event& enter = events[call];
    SendsCompleted event;
    event.call = CallContext{enter.ref(), enter.time, events[enter.link].time};
    event.latest_recv_enter = INT64_MIN;
    // Calls come in increasing order here, as in receive_calls.
    while (next_receive < receive_calls.size() && receive_calls[next_receive].first < call) {
      ++next_receive;
    }
    for (std::size_t q = next_receive; q < receive_calls.size() && receive_calls[q].first == call; ++q) {
      event.latest_send_enter = std::max(event.latest_send_enter, receive_calls[q].second);
    }
    for (; k < send_calls.size() && send_calls[k].first == call; ++k) {
      event.latest_recv_enter = std::max(event.latest_recv_enter, send_calls[k].second);
      ++event.messages;
    }
    sends_completed(event);
  }
}

}  // namespace orrery::analyzer

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

void replay_backward(const LocalTrace& trace, const MessageMatching& matching, MPI_Comm world,
                     const EventBus& bus) {
  const EventStore& events = trace.events;
  std::vector<int64_t> post_enters(trace.recvs.size());
  for (std::size_t i = 0; i < trace.recvs.size(); ++i) {
    if (i + kPrefetchDistance < trace.recvs.size()) {
      const MessageOp& later = trace.recvs[i + kPrefetchDistance];
      events.prefetch(later.post_call == kNone ? later.post_event : later.post_call);
    }
    const MessageOp& op = trace.recvs[i];
    post_enters[i] = events[op.post_call == kNone ? op.post_event : op.post_call].time;
  }
  const std::vector<int64_t> recv_enters = matching.to_senders(post_enters, world);

  // A call that also completed receives (Sendrecv, a Waitall over Irecvs and
  // Isends) waited for its late senders first; Late Receiver starts after.
  // (completing call, send enter) per receive, in call order: a flat array
  // walked alongside the sends below instead of a hash map per receive.
  std::vector<std::pair<uint32_t, int64_t>> receive_calls;
  receive_calls.reserve(trace.recvs.size());
  for (std::size_t r = 0; r < trace.recvs.size() && r < trace.send_enters.size(); ++r) {
    const uint32_t call = trace.recvs[r].complete_call;
    if (call == kNone || trace.send_enters[r] == kNoValue) continue;
    receive_calls.emplace_back(call, trace.send_enters[r]);
  }
  const auto by_first = [](const auto& a, const auto& b) { return a.first < b.first; };
  if (!std::is_sorted(receive_calls.begin(), receive_calls.end(), by_first)) {
    std::sort(receive_calls.begin(), receive_calls.end(), by_first);
  }

  // Group the sends by the call that completed them: for a Waitall over
  // several sends the latest receiver counts.
  std::vector<uint32_t> order;
  for (uint32_t s = 0; s < trace.sends.size(); ++s) {
    if (recv_enters[s] != kNoValue && trace.sends[s].complete_call != kNone) order.push_back(s);
  }
  const auto by_call = [&](uint32_t a, uint32_t b) {
    return trace.sends[a].complete_call < trace.sends[b].complete_call;
  };
  // Blocking sends complete where they were posted: usually already in order.
  if (!std::is_sorted(order.begin(), order.end(), by_call)) {
    std::stable_sort(order.begin(), order.end(), by_call);
  }
  std::size_t next_receive = 0;
  for (std::size_t k = 0; k < order.size();) {
    const uint32_t call = trace.sends[order[k]].complete_call;
    // Two lookups per call (its Enter, then its Leave through the Enter's
    // link): prefetch the Enter far ahead and the Leave of a nearer one, whose
    // Enter the earlier prefetch has brought in.
    if (k + kPrefetchDistance < order.size()) {
      events.prefetch(trace.sends[order[k + kPrefetchDistance]].complete_call);
    }
    if (k + kPrefetchDistance / 2 < order.size()) {
      const uint32_t leave = events[trace.sends[order[k + kPrefetchDistance / 2]].complete_call].link;
      if (leave < events.size()) events.prefetch(leave);
    }
    SendsCompleted event;
    event.call = CallContext{events[call].ref(), events[call].time, trace.exit_time(call)};
    event.latest_recv_enter = INT64_MIN;
    // Calls come in increasing order here, as in receive_calls.
    while (next_receive < receive_calls.size() && receive_calls[next_receive].first < call) {
      ++next_receive;
    }
    for (std::size_t q = next_receive;
         q < receive_calls.size() && receive_calls[q].first == call; ++q) {
      event.latest_send_enter = std::max(event.latest_send_enter, receive_calls[q].second);
    }
    for (; k < order.size() && trace.sends[order[k]].complete_call == call; ++k) {
      event.latest_recv_enter = std::max(event.latest_recv_enter, recv_enters[order[k]]);
      ++event.messages;
    }
    bus.publish(event);
  }
}

}  // namespace orrery::analyzer

// Backward replay: walks the events in reverse. At each receive post the
// receiver sends the enter time of its posting call back to the sender; at
// each send the sender posts the matching receive. Reversed, both sides
// still meet their messages in the same per-(communicator, peer, tag) order,
// and since nothing here blocks until the end, the walk cannot deadlock.

#include <algorithm>
#include <vector>

#include "orrery/analyzer/replay.h"
#include "orrery/analyzer/replay_events.h"

namespace orrery::analyzer {

void replay_backward(const LocalTrace& trace, const Communicators& comms, const EventBus& bus) {
  const EventStore& events = trace.events;
  std::vector<int64_t> post_enters(trace.recvs.size(), 0);
  std::vector<int64_t> recv_enters(trace.sends.size(), INT64_MIN);
  std::vector<MPI_Request> requests;
  requests.reserve(trace.sends.size() + trace.recvs.size());

  for (std::size_t i = events.size(); i-- > 0;) {
    const Event& event = events[i];
    switch (event.kind) {
      case EventKind::kRecv:
      case EventKind::kIrecvRequest:
      case EventKind::kIrecv: {
        const MessageOp& op = trace.recvs[event.link];
        if (op.post_event != i || op.cancelled || op.peer == kNone) break;
        int64_t& payload = post_enters[event.link];
        payload = op.post_call == kNone ? event.time : events[op.post_call].time;
        requests.emplace_back();
        MPI_Isend(&payload, 1, MPI_INT64_T, static_cast<int>(op.peer), static_cast<int>(op.tag),
                  comms.get(op.comm), &requests.back());
        break;
      }
      case EventKind::kSend:
      case EventKind::kIsend: {
        const MessageOp& op = trace.sends[event.link];
        if (op.cancelled) break;
        requests.emplace_back();
        MPI_Irecv(&recv_enters[event.link], 1, MPI_INT64_T, static_cast<int>(op.peer),
                  static_cast<int>(op.tag), comms.get(op.comm), &requests.back());
        break;
      }
      default:
        break;
    }
  }
  MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);

  // Group the sends by the call that completed them: for a Waitall over
  // several sends the latest receiver counts.
  std::vector<uint32_t> order;
  for (uint32_t s = 0; s < trace.sends.size(); ++s) {
    if (!trace.sends[s].cancelled && trace.sends[s].complete_call != kNone) order.push_back(s);
  }
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return trace.sends[a].complete_call < trace.sends[b].complete_call;
  });
  for (std::size_t k = 0; k < order.size();) {
    const uint32_t call = trace.sends[order[k]].complete_call;
    SendsCompleted event;
    event.call = CallContext{events[call].ref, events[call].time, trace.exit_time(call)};
    event.latest_recv_enter = INT64_MIN;
    for (; k < order.size() && trace.sends[order[k]].complete_call == call; ++k) {
      event.latest_recv_enter = std::max(event.latest_recv_enter, recv_enters[order[k]]);
      ++event.messages;
    }
    bus.publish(event);
  }
}

}  // namespace orrery::analyzer

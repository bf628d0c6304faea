// Forward replay: walks the events in time order. A send posts a non-blocking
// message carrying the send call's (corrected) enter time; a receive posts a
// matching MPI_Irecv at the position where the traced receive was posted and
// waits for it where the traced receive completed. Because the traced run
// respected causality, every wait here is for a message whose send lies
// earlier in someone's replay, so the replay cannot deadlock.

#include <algorithm>
#include <vector>

#include "orrery/analyzer/replay.h"
#include "orrery/analyzer/replay_events.h"

namespace orrery::analyzer {
namespace {

/// The open region instances during the walk.
struct Frame {
  uint32_t enter = 0;
  int64_t child_time = 0;
  uint64_t bytes = 0;
  uint32_t messages = 0;
  uint32_t receives = 0;
  int64_t latest_send_enter = INT64_MIN;
};

/// Outstanding replay sends; completed ones are reaped now and then so that
/// the request list stays short.
class SendPool {
 public:
  explicit SendPool(std::size_t capacity) : payloads_(capacity) {}
  int64_t* slot(std::size_t index) { return &payloads_[index]; }
  void add(MPI_Request request) {
    requests_.push_back(request);
    if (requests_.size() >= kReapAt) reap();
  }
  void finish() {
    MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
    requests_.clear();
  }

 private:
  static constexpr std::size_t kReapAt = 1024;
  void reap() {
    int done = 0;
    std::vector<int> indices(requests_.size());
    MPI_Testsome(static_cast<int>(requests_.size()), requests_.data(), &done, indices.data(),
                 MPI_STATUSES_IGNORE);
    requests_.erase(std::remove(requests_.begin(), requests_.end(), MPI_REQUEST_NULL),
                    requests_.end());
  }
  std::vector<int64_t> payloads_;
  std::vector<MPI_Request> requests_;
};

}  // namespace

void replay_forward(LocalTrace& trace, const Communicators& comms, const EventBus& bus,
                    const ReplayOptions& options, ReplayStatistics& statistics) {
  EventStore& events = trace.events;
  std::vector<MPI_Request> recv_requests(trace.recvs.size(), MPI_REQUEST_NULL);
  std::vector<int64_t> send_enters(trace.recvs.size(), 0);
  SendPool sends(trace.sends.size());
  std::vector<Frame> stack;
  stack.reserve(64);
  int64_t shift = 0;

  auto post_receive = [&](uint32_t index) {
    const MessageOp& op = trace.recvs[index];
    if (op.cancelled || op.peer == kNone) return;
    MPI_Irecv(&send_enters[index], 1, MPI_INT64_T, static_cast<int>(op.peer),
              static_cast<int>(op.tag), comms.get(op.comm), &recv_requests[index]);
  };
  auto complete_receive = [&](uint32_t index, Event& event) {
    const MessageOp& op = trace.recvs[index];
    if (op.cancelled || op.peer == kNone) return;
    MPI_Wait(&recv_requests[index], MPI_STATUS_IGNORE);
    const int64_t send_enter = send_enters[index];
    ++statistics.messages;
    // Clock condition: a receive cannot complete before its send began.
    if (options.correct_clock_violations && event.time < send_enter) {
      const int64_t delta = send_enter - event.time;
      ++statistics.clock_violations;
      statistics.max_violation = std::max(statistics.max_violation, delta);
      shift += delta;
      event.time += delta;
    }
    if (stack.empty()) return;
    Frame& frame = stack.back();
    frame.bytes += op.bytes;
    ++frame.messages;
    ++frame.receives;
    frame.latest_send_enter = std::max(frame.latest_send_enter, send_enter);
    bus.publish(MessageReceived{events[frame.enter].ref, events[frame.enter].time, send_enter,
                                op.bytes});
  };

  for (std::size_t i = 0; i < events.size(); ++i) {
    Event& event = events[i];
    event.time += shift;
    switch (event.kind) {
      case EventKind::kEnter:
        stack.push_back(Frame{static_cast<uint32_t>(i)});
        break;
      case EventKind::kLeave: {
        const Frame frame = stack.back();
        stack.pop_back();
        const Event& enter = events[frame.enter];
        const CallContext call{enter.ref, enter.time, event.time};
        const int64_t duration = event.time - enter.time;
        if (!stack.empty()) stack.back().child_time += duration;
        if (frame.receives > 0) {
          bus.publish(ReceivesCompleted{call, frame.latest_send_enter, frame.receives});
        }
        bus.publish(RegionExited{call, duration - frame.child_time, frame.bytes,
                                 frame.messages});
        break;
      }
      case EventKind::kSend:
      case EventKind::kIsend: {
        const MessageOp& op = trace.sends[event.link];
        if (op.cancelled) break;
        int64_t* payload = sends.slot(event.link);
        *payload = op.post_call == kNone ? event.time : events[op.post_call].time;
        MPI_Request request;
        MPI_Isend(payload, 1, MPI_INT64_T, static_cast<int>(op.peer), static_cast<int>(op.tag),
                  comms.get(op.comm), &request);
        sends.add(request);
        if (!stack.empty()) {
          stack.back().bytes += op.bytes;
          ++stack.back().messages;
          bus.publish(MessageSent{events[stack.back().enter].ref, op.bytes});
        }
        break;
      }
      case EventKind::kIrecvRequest:
        post_receive(event.link);
        break;
      case EventKind::kRecv:
      case EventKind::kIrecv:
        if (trace.recvs[event.link].post_event == i) post_receive(event.link);
        complete_receive(event.link, event);
        break;
      default:
        break;
    }
  }
  sends.finish();
}

}  // namespace orrery::analyzer

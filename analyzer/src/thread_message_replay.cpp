// The replay of thread messages (thread_messages.h): the same exchange as
// the forward and backward replays (the send's posting enter to the
// receiver, the receive's posting enter to the sender), over the process
// tables, and the same replay events, raised on the bus of the location
// that waited.

#include <algorithm>

#include "orrery/trace/clock.h"
#include "orrery/replay/replay_events.h"
#include "orrery/analyzer/thread_messages.h"
#include "thread_call_paths.h"

namespace orrery::analyzer {
namespace {

uint32_t posting(const MessageOp& op) { return op.post_call != kNone ? op.post_call : op.post_event; }

/// (completing call's Enter, process table entry), sorted by call.
using CallEntries = std::vector<std::pair<uint32_t, uint32_t>>;

}  // namespace

uint64_t ThreadMessages::replay(const LocalTrace& master, const Definitions& definitions, const CallTree& tree,
                                const std::vector<std::vector<ThreadSeverities::TeamEntry>>& teams,
                                const std::vector<const EventBus*>& buses, MPI_Comm world) const {
  if (!active_) return 0;
  // The posting call's enter of every operation travels to its partner.
  std::vector<int64_t> send_posts(sends_.size()), recv_posts(recvs_.size());
  for (std::size_t k = 0; k < sends_.size(); ++k) {
    const LocalTrace& trace = trace_of(master, sends_[k].location);
    send_posts[k] = trace.events[posting(trace.sends[sends_[k].index])].time;
  }
  for (std::size_t k = 0; k < recvs_.size(); ++k) {
    const LocalTrace& trace = trace_of(master, recvs_[k].location);
    recv_posts[k] = trace.events[posting(trace.recvs[recvs_[k].index])].time;
  }
  const std::vector<int64_t> send_enters = matching_.to_receivers(send_posts, world);
  const std::vector<int64_t> recv_enters = matching_.to_senders(recv_posts, world);

  const ClockMapping clock(master.clock_offsets);
  uint64_t received = 0;
  for (uint32_t location = 0; location <= threads_.size() && location < buses.size(); ++location) {
    const LocalTrace& trace = trace_of(master, location);
    const EventBus& bus = *buses[location];
    const ThreadCallPaths callpath(trace, location == 0, definitions, tree,
                             location == 0 || location > teams.size() ? nullptr : &teams[location - 1], clock);
    const auto call_of = [&](uint32_t enter) {
      return CallContext{callpath(enter), trace.events[enter].time, trace.exit_time(enter)};
    };

    // This location's thread messages whose partner is known, by completing call.
    const auto by_call = [&](const std::vector<Entry>& entries, const std::vector<uint8_t>& thread_message,
                             MessageTable LocalTrace::* ops, const std::vector<int64_t>& partner) {
      CallEntries list;
      for (uint32_t k = 0; k < entries.size(); ++k) {
        if (entries[k].location != location || thread_message[k] == 0) continue;
        const MessageOp& op = (trace.*ops)[entries[k].index];
        if (partner[k] != kNoValue && op.complete_call != kNone) list.emplace_back(op.complete_call, k);
      }
      std::stable_sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      return list;
    };

    // Forward: messages posted and received, receiving calls.
    const CallEntries receives = by_call(recvs_, recv_is_thread_message_, &LocalTrace::recvs, send_enters);
    for (uint32_t k = 0; k < sends_.size(); ++k) {
      if (sends_[k].location != location || send_is_thread_message_[k] == 0) continue;
      const MessageOp& op = trace.sends[sends_[k].index];
      if (op.post_call == kNone) continue;
      bus.publish(MessageSent{callpath(op.post_call), op.bytes});
    }
    for (std::size_t q = 0; q < receives.size();) {
      const uint32_t enter = receives[q].first;
      const CallContext call = call_of(enter);
      ReceivesCompleted completed{call, INT64_MIN, 0};
      for (; q < receives.size() && receives[q].first == enter; ++q) {
        const uint32_t k = receives[q].second;
        const MessageOp& op = trace.recvs[recvs_[k].index];
        bus.publish(MessageReceived{call.callpath, call.enter, send_enters[k], op.bytes,
                                    trace.events[posting(op)].time});
        // Counted as the forward walk counts its receives.
        bus.publish(CallPathCounts{.callpath = call.callpath, .receives = 1, .bytes_received = op.bytes});
        completed.latest_send_enter = std::max(completed.latest_send_enter, send_enters[k]);
        ++completed.messages;
        ++received;
      }
      bus.publish(completed);
    }

    // Backward: sending calls learn their latest receiver.
    const CallEntries sends = by_call(sends_, send_is_thread_message_, &LocalTrace::sends, recv_enters);
    std::size_t next_receive = 0;
    for (std::size_t q = 0; q < sends.size();) {
      const uint32_t enter = sends[q].first;
      SendsCompleted completed;
      completed.call = call_of(enter);
      completed.latest_recv_enter = INT64_MIN;
      while (next_receive < receives.size() && receives[next_receive].first < enter) ++next_receive;
      for (std::size_t r = next_receive; r < receives.size() && receives[r].first == enter; ++r) {
        completed.latest_send_enter = std::max(completed.latest_send_enter, send_enters[receives[r].second]);
      }
      for (; q < sends.size() && sends[q].first == enter; ++q) {
        completed.latest_recv_enter = std::max(completed.latest_recv_enter, recv_enters[sends[q].second]);
        ++completed.messages;
      }
      bus.publish(completed);
    }
  }
  return received;
}

}  // namespace orrery::analyzer

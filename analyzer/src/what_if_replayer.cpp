// The what-if walk over one rank's events and its messages (what_if.h).
// One replay message per traced message, along MessageMatching's routes:
// the tag is the message's number between the two ranks, so each value meets
// exactly the receive MPI matched in the trace, wildcards included.

#include "what_if_replayer.h"

#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "orrery/error.h"
#include "vmpi.h"

namespace orrery::analyzer {
namespace {

/// A replay that waits this long for one value has stalled: the model made
/// the program deadlock (a send it buffered is a rendezvous on the model).
constexpr std::chrono::seconds kStallLimit{120};

}  // namespace

WhatIfReplayer::WhatIfReplayer(const ReplayInputs& in, const MachineModel& model)
    : in_(in), model_(model) {
  const MPI_Comm world = in.world;
  LocalTrace& trace = in.trace;
  const Definitions& definitions = in.definitions;
  vmpi::Comm_dup(world, &forward_);
  vmpi::Comm_dup(world, &backward_);
  int* tag_upper_bound = nullptr;
  int found = 0;
  vmpi::Comm_get_attr(world, MPI_TAG_UB, &tag_upper_bound, &found);
  if (found != 0 && tag_upper_bound != nullptr) tag_limit_ = *tag_upper_bound;
  const auto per_second = static_cast<double>(definitions.timer_resolution);
  latency_ticks_ = model.latency * per_second;
  ticks_per_byte_ = std::isinf(model.bandwidth) ? 0.0 : per_second / model.bandwidth;
  send_ready_.assign(trace.sends.size(), 0);
  send_done_.assign(trace.sends.size(), 0);
  forward_out_.assign(trace.sends.size(), 0);
  recv_post_.assign(trace.recvs.size(), 0);
  routes_ = in.matching.route_index();
  // The byte counts tell eager from rendezvous: not needed without an eager
  // limit (every rank has the same model, so none of them exchanges).
  if (model.eager_limit != UINT64_MAX) {
    std::vector<int64_t> bytes(trace.sends.size());
    for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<int64_t>(trace.sends[i].bytes);
    sender_bytes_ = in.matching.to_receivers(bytes, world);
  }
  backward_out_.assign(trace.recvs.size(), 0);
  region_is_mpi_.reserve(definitions.regions.size());
  for (const auto& region : definitions.regions) {
    region_is_mpi_.push_back(region.paradigm == Paradigm::kMpi ? 1 : 0);
  }
}

WhatIfReplayer::~WhatIfReplayer() {
  vmpi::Comm_free(&forward_);
  vmpi::Comm_free(&backward_);
}

int64_t WhatIfReplayer::ticks(double value) const {
  return value == 0.0 ? 0 : std::llround(value);  // the ideal network's every cost
}

bool WhatIfReplayer::eager_receive(uint32_t recv) const {
  if (model_.eager_limit == UINT64_MAX) return true;
  const int64_t bytes = sender_bytes_[recv];
  return bytes == kNoValue || eager(static_cast<uint64_t>(bytes));
}

void WhatIfReplayer::wait_for(MPI_Request& request) const {
  // Polls (yielding the core to the partner, which may share it) and looks
  // at the clock now and then.
  int done = 0;
  const auto start = std::chrono::steady_clock::now();
  for (uint64_t polls = 0; done == 0; ++polls) {
    vmpi::Test(&request, &done, MPI_STATUS_IGNORE);
    if (done != 0) break;
    if (polls >= 64) sched_yield();  // a partner on another core answers within the first polls
    if (polls % 4096 == 4095 && std::chrono::steady_clock::now() - start > kStallLimit) {
      throw InputError("the what-if replay of rank " + std::to_string(in_.trace.rank) +
                       " waited more than " + std::to_string(kStallLimit.count()) +
                       " s for a partner: on the model the program deadlocks (it relies on MPI "
                       "buffering messages of at least the eager limit, " +
                       std::to_string(model_.eager_limit) + " bytes); raise --eager-limit");
    }
  }
}

void WhatIfReplayer::send_value(int64_t& slot, uint32_t peer, uint32_t number, MPI_Comm comm) {
  MPI_Request request = MPI_REQUEST_NULL;
  vmpi::Isend(&slot, 1, MPI_INT64_T, static_cast<int>(peer),
            static_cast<int>(number % static_cast<uint32_t>(tag_limit_)), comm, &request);
  in_flight_.push_back(request);
  if (in_flight_.size() < next_cleanup_) return;
  // Forget the completed sends (their buffers are per message and stay
  // valid); the next look when twice as many are in flight, so the cost per
  // send stays constant however many the receivers have not taken yet.
  indices_.resize(in_flight_.size());
  int completed = 0;
  vmpi::Testsome(static_cast<int>(in_flight_.size()), in_flight_.data(), &completed, indices_.data(),
               MPI_STATUSES_IGNORE);
  std::erase(in_flight_, MPI_REQUEST_NULL);
  next_cleanup_ = std::max<std::size_t>(4096, 2 * in_flight_.size());
}

int64_t WhatIfReplayer::receive_value(uint32_t peer, uint32_t number, MPI_Comm comm) {
  int64_t value = 0;
  MPI_Request request = MPI_REQUEST_NULL;
  vmpi::Irecv(&value, 1, MPI_INT64_T, static_cast<int>(peer),
            static_cast<int>(number % static_cast<uint32_t>(tag_limit_)), comm, &request);
  wait_for(request);
  return value;
}

void WhatIfReplayer::post_send(uint32_t send, int64_t at) {
  const MessageOp& op = in_.trace.sends[send];
  const auto bytes = static_cast<double>(op.bytes);
  const int64_t ready = std::max(at, out_free_);
  send_ready_[send] = ready;
  const MessageMatching::Route route = routes_.send_route(send);
  if (op.cancelled) {
    send_done_[send] = at;
    return;
  }
  int64_t value = ready;
  if (eager(op.bytes) || route.peer == kNone) {
    out_free_ = ready + ticks(bytes * ticks_per_byte_);
    send_done_[send] = out_free_;
    value = ready + ticks(latency_ticks_ + bytes * ticks_per_byte_);
  }
  if (route.peer == kNone) return;
  if (guesses_ != nullptr) {
    guesses_->sent[send] = value;
    return;
  }
  forward_out_[send] = value;
  send_value(forward_out_[send], route.peer, route.number, forward_);
}

int64_t WhatIfReplayer::complete_send(uint32_t send) {
  const MessageOp& op = in_.trace.sends[send];
  if (op.cancelled || eager(op.bytes)) return send_done_[send];
  const MessageMatching::Route route = routes_.send_route(send);
  if (route.peer == kNone) return send_done_[send];
  const int64_t posted = receive_value(route.peer, route.number, backward_);
  const int64_t start = std::max(send_ready_[send], posted);
  const int64_t done = start + ticks(static_cast<double>(op.bytes) * ticks_per_byte_);
  out_free_ = std::max(out_free_, done);
  return done;
}

void WhatIfReplayer::post_recv(uint32_t recv, int64_t at) {
  const MessageOp& op = in_.trace.recvs[recv];
  recv_post_[recv] = at;
  if (op.cancelled || eager_receive(recv)) return;
  const MessageMatching::Route route = routes_.recv_route(recv);
  if (route.peer == kNone) return;
  backward_out_[recv] = at;
  send_value(backward_out_[recv], route.peer, route.number, backward_);
}

int64_t WhatIfReplayer::complete_recv(uint32_t recv) {
  const MessageOp& op = in_.trace.recvs[recv];
  if (op.cancelled) return INT64_MIN;
  const MessageMatching::Route route = routes_.recv_route(recv);
  if (route.peer == kNone) return INT64_MIN;
  const auto bytes = static_cast<double>(op.bytes);
  const int64_t value = guesses_ != nullptr ? guesses_->received[recv]
                                            : receive_value(route.peer, route.number, forward_);
  const int64_t arrival =
      eager_receive(recv) ? value
                      : std::max(value, recv_post_[recv]) +
                            ticks(latency_ticks_ + bytes * ticks_per_byte_);
  // The in link takes one message at a time, in this rank's completion order.
  const int64_t delivered =
      in_free_ == INT64_MIN ? arrival : std::max(arrival, in_free_ + ticks(bytes * ticks_per_byte_));
  in_free_ = delivered;
  return delivered;
}

int64_t WhatIfReplayer::retime(uint32_t index, const Event& event, int64_t& now) {
  // Only communication events come here (run() handles Enter and Leave).
  Frame* call = stack_.empty() ? nullptr : &stack_.back();
  if (call != nullptr) call->communicated = true;
  const int64_t call_enter = call != nullptr ? call->enter : now;
  switch (event.kind()) {
    case EventKind::kEnter:
    case EventKind::kLeave:
      return now;
    case EventKind::kSend: {
      const int64_t at = now;
      post_send(event.link, at);
      now = std::max(now, complete_send(event.link));
      return at;
    }
    case EventKind::kIsend:
      post_send(event.link, now);
      return now;
    case EventKind::kIsendComplete:
      now = std::max(now, complete_send(event.link));
      return now;
    case EventKind::kIrecvRequest:
      post_recv(event.link, now);
      return now;
    case EventKind::kRecv:
    case EventKind::kIrecv:
      if (in_.trace.recvs[event.link].post_event == index) post_recv(event.link, call_enter);
      if (guesses_ != nullptr) {
        guesses_->reached[event.link] = now;
        guesses_->completed.push_back(event.link);
      }
      now = std::max(now, complete_recv(event.link));
      return now;
    case EventKind::kCollectiveBegin:
    case EventKind::kNbcRequest:
      start_collective(event.link, Frame{true, true, now, event.time});
      return now;
    case EventKind::kCollectiveEnd:
    case EventKind::kNbcComplete: {
      const CollectiveOp& op = in_.trace.collectives[event.link];
      const int64_t original_exit =
          op.complete_call == kNone ? event.time : in_.trace.exit_time(op.complete_call);
      now = std::max(now, finish_collective(event.link, original_exit));
      return now;
    }
  }
  return now;
}

void WhatIfReplayer::run(bool apply) {
  stack_.clear();
  out_free_ = INT64_MIN;
  in_free_ = INT64_MIN;
  collectives_.clear();
  first_time_ = in_.trace.first_time;
  int64_t now = in_.trace.first_time;
  int64_t previous = in_.trace.first_time;
  const bool unscaled = model_.compute == 1.0;
  const auto scaled = [&](int64_t gap) {
    return unscaled ? gap : ticks(static_cast<double>(gap) * model_.compute);
  };
  const std::size_t count = in_.trace.events.size();
  for (uint32_t i = 0; i < count; ++i) {
    const Event event = in_.trace.events[i];
    // Time outside MPI calls is computation: kept (scaled); time inside one
    // is replaced by the model.
    const int64_t gap = event.time - previous;
    if (gap > 0 && (stack_.empty() || !stack_.back().mpi)) now += scaled(gap);
    previous = event.time;
    int64_t time = now;
    // Enter and Leave (most events) right here, without a call.
    switch (event.kind()) {
      case EventKind::kEnter: {
        const uint32_t region = in_.tree.region(event.ref());
        const bool mpi = region < region_is_mpi_.size() && region_is_mpi_[region] != 0;
        stack_.push_back(Frame{mpi, false, now, event.time});
        break;
      }
      case EventKind::kLeave:
        if (!stack_.empty()) {
          const Frame& frame = stack_.back();
          // An MPI call without communication keeps its traced duration.
          if (frame.mpi && !frame.communicated) now = frame.enter + (event.time - frame.original_enter);
          stack_.pop_back();
          time = now;
        }
        break;
      default:
        time = retime(i, event, now);
        break;
    }
    if (apply) in_.trace.events[i].time = time;
  }
  original_end_ = std::max(in_.trace.last_time, previous);
  predicted_end_ = now + scaled(std::max<int64_t>(0, in_.trace.last_time - previous));
  vmpi::Waitall(static_cast<int>(in_flight_.size()), in_flight_.data(), MPI_STATUSES_IGNORE);
  in_flight_.clear();
  if (!apply) return;
  in_.trace.last_time = predicted_end_;
  if (model_.compute == 1.0) return;
  for (FoldedTotals& totals : in_.trace.folded) totals.exclusive = scaled(totals.exclusive);
  for (int64_t& time : in_.trace.folded_child_time) time = scaled(time);
  for (FoldedSpan& span : in_.trace.folded_spans) span.exclusive = scaled(span.exclusive);
}

WhatIfTiming replay_what_if(const ReplayInputs& in, const MachineModel& model, bool apply) {
  WhatIfReplayer replayer(in, model);
  // On the ideal network most balanced programs never wait: then one walk
  // and one bulk exchange instead of one message per message.
  const bool ideal = model.eager_limit == UINT64_MAX && model.latency == 0 &&
                     std::isinf(model.bandwidth);
  bool without_waits = false;
  bool tried = false;
  if (!apply && ideal && replayer.worth_round()) {
    tried = true;
    without_waits = replayer.run_without_waits();
  }
  if (!without_waits) replayer.run(apply);
  // The earliest start (negated) and the latest ends, over all ranks.
  int64_t ends[3] = {-replayer.first_time(), replayer.original_end(), replayer.predicted_end()};
  vmpi::Allreduce(MPI_IN_PLACE, ends, 3, MPI_INT64_T, MPI_MAX, in.world);
  const double tick = 1.0 / static_cast<double>(in.definitions.timer_resolution);
  WhatIfTiming timing;
  timing.measured_runtime = static_cast<double>(ends[1] + ends[0]) * tick;
  timing.predicted_runtime = static_cast<double>(ends[2] + ends[0]) * tick;
  timing.predicted_end = static_cast<double>(replayer.predicted_end() + ends[0]) * tick;
  timing.without_waits = without_waits;
  timing.without_waits_tried = tried && !without_waits;
  return timing;
}

}  // namespace orrery::analyzer

#include "orrery/trace/trace_builder.h"

#include "orrery/error.h"

namespace orrery::analyzer {

namespace {

/// Fills in what a message event says about its message.
void describe_message(MessageOp& op, uint32_t peer, uint32_t comm, uint32_t tag,
                      uint64_t bytes) {
  op.peer = peer;
  op.comm = comm;
  op.tag = tag;
  op.bytes = bytes;
}

}  // namespace

void throw_table_too_large() {
  throw InputError("a rank's trace is too large: more than 4 billion events or messages, or more than "
                   "268 million call paths");
}

uint32_t Definitions::world_rank(uint32_t comm, uint32_t rank_in_comm, uint32_t self) const {
  auto it = comms.find(comm);
  if (it == comms.end()) return kNone;
  if (it->second.is_self) return rank_in_comm == 0 ? self : kNone;
  if (rank_in_comm >= it->second.members.size()) return kNone;
  return it->second.members[rank_in_comm];
}

void TraceBuilder::enter_uncached(int64_t time, uint32_t region, KnownChild& known) {
  const uint32_t parent = top_->callpath;
  const uint32_t callpath = trace_.calltree.child(parent, region);
  if (callpath > Event::kMaxRef - 1) throw_table_too_large();
  if (trace_.folded.size() < trace_.calltree.size()) trace_.folded.resize(trace_.calltree.size());
  const bool synchronizing = region < synchronizing_.size() && synchronizing_[region].kind != CollectiveKind::kOther;
  const int64_t reference = reference_time(time);
  if (program_begin_pending_ != INT64_MIN) end_program_begin_gap(reference);
  if (!synchronizing) known = KnownChild{parent, region, callpath};
  open_frame(reference, region, callpath);
  if (synchronizing) open_synchronizing(time);
}

void TraceBuilder::leave_checked(int64_t time, uint32_t region) {
  if (no_open_region()) throw_leave_without_enter();
  if (synchronizing_open_ != kNone) close_synchronizing(time, region);
  const int64_t reference = reference_time(time);
  if (open_off_instances_ > 0) close_off_instances(reference, region);
  close_region(reference, region);
}

void TraceBuilder::grow_frames() {
  const std::size_t top = open_regions();
  frames_.resize(frames_.size() * 2);
  top_ = frames_.data() + top;
  frames_last_ = frames_.data() + frames_.size() - 1;
}

void TraceBuilder::forget_known_children() { known_children_.fill(KnownChild{}); }

void TraceBuilder::end_program_begin_gap(int64_t reference) {
  // The program began before its first region: that time is outside regions.
  if (no_open_region() && reference > program_begin_pending_) ++trace_.loose_events;
  program_begin_pending_ = INT64_MIN;
}

void TraceBuilder::open_synchronizing(int64_t time) {
  if (open_collective_ != kNone) return;
  open_collective(time);
  synchronizing_open_ = open_collective_;
  update_leave_checks();
}

void TraceBuilder::neighborhood_in(uint32_t region) {
  if (region >= neighborhood_regions_.size()) neighborhood_regions_.resize(region + 1, false);
  neighborhood_regions_[region] = true;
}

CollectiveKind TraceBuilder::kind_of(uint32_t start_call, CollectiveKind kind) const {
  if (neighborhood_regions_.empty() || start_call == kNone) return kind;
  const uint32_t region = trace_.calltree.region(trace_.events[start_call].ref());
  return region < neighborhood_regions_.size() && neighborhood_regions_[region]
             ? CollectiveKind::kNeighbor
             : kind;
}

void TraceBuilder::program_begin(int64_t time, const std::string& program_name) {
  const int64_t reference = reference_time(time);
  ++trace_.program_events;
  if (trace_.program_name.empty()) trace_.program_name = program_name;
  if (no_open_region()) {
    program_begin_pending_ = reference;
    forget_known_children();  // the next Enter ends the gap (enter_uncached)
  }
}

void TraceBuilder::program_end(int64_t time) {
  const bool after_regions = no_open_region() && trace_.events_read > 0;
  const int64_t last = trace_.last_time;
  const int64_t reference = reference_time(time);
  ++trace_.program_events;
  // The program ended after its last region: that time is outside regions.
  if (after_regions && (reference > last || program_begin_pending_ != INT64_MIN)) {
    ++trace_.loose_events;
  }
  program_begin_pending_ = INT64_MIN;
}

void TraceBuilder::synchronize_in(uint32_t region, CollectiveKind kind, uint32_t comm) {
  if (region >= synchronizing_.size()) synchronizing_.resize(region + 1);
  synchronizing_[region] = Synchronizing{kind, comm};
  forget_known_children();  // its call paths must not be answered by the cache
}

void TraceBuilder::throw_leave_without_enter() const {
  throw InputError("trace of rank " + std::to_string(trace_.rank) +
                   " is inconsistent: a Leave without a matching Enter");
}

void TraceBuilder::close_synchronizing(int64_t time, uint32_t region) {
  // The collective an MPI_Init/MPI_Finalize instance opened ends at its Leave.
  if (synchronizing_open_ == open_collective_ && !no_open_region() && region < synchronizing_.size() &&
      trace_.collectives[synchronizing_open_].start_call == top_->enter) {
    const Synchronizing& sync = synchronizing_[region];
    finish_collective(time, sync.kind, sync.comm, kNone, 0, 0);
    synchronizing_open_ = kNone;
    update_leave_checks();
  }
}

void TraceBuilder::close_off_instances(int64_t reference, uint32_t region) {
  // A measurement-off instance still open when its caller is left ends there.
  const uint32_t off_region = trace_.measurement_regions + 1;
  while (region != off_region && open_regions() > 1 && top_->region == off_region) {
    close_region(reference, off_region);
  }
}

void TraceBuilder::buffer_flush(int64_t time, int64_t stop) {
  if (trace_.measurement_regions == kNone || trace_.flushes_are_regions) return;
  trace_.measurement_regions_used = true;
  enter(time, trace_.measurement_regions);
  leave(stop, trace_.measurement_regions);
}

void TraceBuilder::measurement(int64_t time, bool on) {
  if (trace_.measurement_regions == kNone) return;
  const uint32_t off_region = trace_.measurement_regions + 1;
  const bool off_is_open = top_->region == off_region;  // (never the sentinel's)
  if (!on && !off_is_open) {
    trace_.measurement_regions_used = true;
    enter(time, off_region);
    ++open_off_instances_;
    update_leave_checks();
  } else if (on && off_is_open) {
    leave(time, off_region);
  }
}

void TraceBuilder::throw_mismatched_leave(uint32_t region, uint32_t open_region) const {
  throw InputError("trace of rank " + std::to_string(trace_.rank) +
                   " is inconsistent: Leave of region " + std::to_string(region) +
                   " while region " + std::to_string(open_region) + " is open");
}

void TraceBuilder::note_off_instance_closed(uint32_t region) {
  if (region == trace_.measurement_regions + 1) --open_off_instances_;
  update_leave_checks();
}

void TraceBuilder::fold(const Frame& frame, int64_t duration) {
  FoldedTotals& totals = trace_.folded[frame.callpath];
  ++totals.visits;
  totals.exclusive += duration - frame.folded_child_time;
  trace_.events.truncate(frame.enter);
  // Its folded callees were recorded before their own Enter indices; the
  // next kept event now takes this instance's index, so their time lies
  // in the gap before it (the spans stay in event order).
  if (trace_.keep_folded_spans) {
    auto& spans = trace_.folded_spans;
    for (auto span = spans.rbegin(); span != spans.rend() && span->before_event > frame.enter; ++span) {
      span->before_event = frame.enter;
    }
    record_folded_span(frame.enter, frame.callpath, duration - frame.folded_child_time);
  }
  (no_open_region() ? trace_.folded_top_level_time : top_->folded_child_time) += duration;
}

uint32_t TraceBuilder::note_folded_child_time(int64_t folded_child_time) {
  const auto folded_ref = static_cast<uint32_t>(trace_.folded_child_time.size());
  if (folded_ref > Event::kMaxRef) throw_table_too_large();
  trace_.folded_child_time.push_back(folded_child_time);
  return folded_ref;
}

void TraceBuilder::record_folded_span(uint32_t before_event, uint32_t callpath, int64_t exclusive) {
  // Loops call the same few functions between two communication calls: a
  // short look back merges their instances into one span per call path.
  std::vector<FoldedSpan>& spans = trace_.folded_spans;
  constexpr std::size_t kLookBack = 8;
  for (std::size_t k = spans.size(); k > 0 && k + kLookBack > spans.size(); --k) {
    FoldedSpan& span = spans[k - 1];
    if (span.before_event != before_event) break;
    if (span.callpath == callpath) {
      span.exclusive += exclusive;
      return;
    }
  }
  spans.push_back(FoldedSpan{before_event, callpath, exclusive});
}

void TraceBuilder::isend(int64_t time, uint32_t receiver, uint32_t comm, uint32_t tag,
                         uint64_t bytes, uint64_t request) {
  MessageOp op;
  op.post_call = current_call();
  describe_message(op, receiver, comm, tag, bytes);
  const auto index = static_cast<uint32_t>(trace_.sends.size());
  op.post_event = push_communication(time, EventKind::kIsend, index);
  trace_.sends.push_back(op);
  trace_.send_post_times.push_back(posting_time());
  pending_isends_[request] = index;
}

void TraceBuilder::isend_complete(int64_t time, uint64_t request) {
  auto it = pending_isends_.find(request);
  if (it == pending_isends_.end()) {
    ++trace_.unmatched_requests;
    return;
  }
  trace_.sends[it->second].complete_call = current_call();
  push_communication(time, EventKind::kIsendComplete, it->second);
  pending_isends_.erase(it);
}

void TraceBuilder::irecv_request(int64_t time, uint64_t request) {
  MessageOp op;
  op.post_call = current_call();
  const auto index = static_cast<uint32_t>(trace_.recvs.size());
  op.post_event = push_communication(time, EventKind::kIrecvRequest, index);
  trace_.recvs.push_back(op);
  trace_.recv_times.push_back(ReceiveTimes{posting_time(), kNoValue});
  pending_irecvs_[request] = index;
}

void TraceBuilder::irecv(int64_t time, uint32_t sender, uint32_t comm, uint32_t tag,
                         uint64_t bytes, uint64_t request) {
  auto it = pending_irecvs_.find(request);
  uint32_t index = 0;
  if (it == pending_irecvs_.end()) {
    // A producer that does not record the post: treat the completion as the post.
    MessageOp op;
    op.post_call = current_call();
    index = static_cast<uint32_t>(trace_.recvs.size());
    trace_.recvs.push_back(op);
    trace_.recvs[index].post_event = trace_.recvs[index].complete_event =
        push_communication(time, EventKind::kIrecv, index);
    trace_.recv_times.push_back(ReceiveTimes{posting_time(), trace_.last_time});
  } else {
    index = it->second;
    pending_irecvs_.erase(it);
    trace_.recvs[index].complete_event = push_communication(time, EventKind::kIrecv, index);
    trace_.recv_times[index].completion = trace_.last_time;
  }
  MessageOp& op = trace_.recvs[index];
  op.complete_call = current_call();
  describe_message(op, sender, comm, tag, bytes);
}

void TraceBuilder::request_cancelled(uint64_t request) {
  if (auto it = pending_isends_.find(request); it != pending_isends_.end()) {
    trace_.sends[it->second].cancelled = true;
    pending_isends_.erase(it);
  } else if (auto jt = pending_irecvs_.find(request); jt != pending_irecvs_.end()) {
    trace_.recvs[jt->second].cancelled = true;
    trace_.recv_times[jt->second].completion = kNoValue;
    pending_irecvs_.erase(jt);
  }
}

bool TraceBuilder::inside_synchronizing() const {
  return synchronizing_open_ != kNone && synchronizing_open_ == open_collective_;
}

void TraceBuilder::collective_begin(int64_t time) {
  // Producers that record MPI_Init/MPI_Finalize as collectives themselves
  // (Score-P, Orrery): the instance's Enter opened its collective already.
  if (inside_synchronizing()) {
    reference_time(time);  // read (and counted), not kept
    return;
  }
  open_collective(time);
}

void TraceBuilder::open_collective(int64_t time) {
  CollectiveOp op;
  op.start_call = current_call();
  open_collective_ = static_cast<uint32_t>(trace_.collectives.size());
  trace_.collectives.push_back(op);
  push_communication(time, EventKind::kCollectiveBegin, open_collective_);
}

void TraceBuilder::collective_end(int64_t time, CollectiveKind kind, uint32_t comm, uint32_t root,
                                  uint64_t sent, uint64_t received) {
  if (inside_synchronizing()) {  // the instance's Leave ends it (as kInit/kFinalize)
    reference_time(time);
    return;
  }
  finish_collective(time, kind, comm, root, sent, received);
}

void TraceBuilder::finish_collective(int64_t time, CollectiveKind kind, uint32_t comm, uint32_t root,
                                     uint64_t sent, uint64_t received) {
  if (open_collective_ == kNone) open_collective(time);  // producers without Begin
  complete_collective(trace_.collectives[open_collective_], kind, comm, root, sent, received);
  push_communication(time, EventKind::kCollectiveEnd, open_collective_);
  open_collective_ = kNone;
}

void TraceBuilder::complete_collective(CollectiveOp& op, CollectiveKind kind, uint32_t comm,
                                       uint32_t root, uint64_t sent, uint64_t received) const {
  op.complete_call = current_call();
  op.kind = kind_of(op.start_call, kind);
  op.comm = comm;
  op.root = root;
  op.bytes_sent = sent;
  op.bytes_received = received;
}

void TraceBuilder::nbc_request(int64_t time, uint64_t request) {
  CollectiveOp op;
  op.start_call = current_call();
  op.nonblocking = true;
  const auto index = static_cast<uint32_t>(trace_.collectives.size());
  trace_.collectives.push_back(op);
  pending_nbcs_[request] = index;
  push_communication(time, EventKind::kNbcRequest, index);
}

void TraceBuilder::nbc_complete(int64_t time, CollectiveKind kind, uint32_t comm, uint32_t root,
                                uint64_t sent, uint64_t received, uint64_t request) {
  auto it = pending_nbcs_.find(request);
  uint32_t index = 0;
  if (it == pending_nbcs_.end()) {
    // Started on another location (a thread of the process): the instance
    // is this location's, from its completing call, as irecv() does.
    CollectiveOp op;
    op.start_call = current_call();
    op.nonblocking = true;
    index = static_cast<uint32_t>(trace_.collectives.size());
    trace_.collectives.push_back(op);
  } else {
    index = it->second;
    pending_nbcs_.erase(it);
  }
  complete_collective(trace_.collectives[index], kind, comm, root, sent, received);
  push_communication(time, EventKind::kNbcComplete, index);
}

void TraceBuilder::finish() {
  while (!no_open_region()) {
    ++trace_.unclosed_regions;
    close_region(trace_.last_time, static_cast<uint32_t>(top_->region));
  }
  trace_.unmatched_requests += pending_nbcs_.size();
}

}  // namespace orrery::analyzer

#include "orrery/analyzer/clock_condition.h"

#include <algorithm>
#include <climits>
#include <utility>

#include "vmpi.h"

namespace orrery::analyzer {
namespace {

constexpr int kMaxRounds = 64;

/// Where a send's time is taken: the enter of its posting call (or the post itself).
uint32_t send_index(const MessageOp& op) { return op.post_call == kNone ? op.post_event : op.post_call; }

/// The forward pass's value for event i without any receive constraint.
int64_t unconstrained(const std::vector<int64_t>& original, const std::vector<int64_t>& corrected,
                      std::size_t i, double keep) {
  if (i == 0) return original[0];
  const int64_t elapsed = original[i] - original[i - 1];
  return std::max(original[i],
                  corrected[i - 1] + static_cast<int64_t>(keep * static_cast<double>(elapsed)));
}

/// Each send's time on the corrected times.
std::vector<int64_t> send_times(const LocalTrace& trace, const std::vector<int64_t>& corrected) {
  std::vector<int64_t> values(trace.sends.size());
  trace.sends.for_each([&](uint32_t s, const MessageOp& op) {
    const uint32_t index = send_index(op);
    values[s] = index == kNone ? kNoValue : corrected[index];
  });
  return values;
}

/// Round 0's times from one stream over the events: the sends and the
/// receives are walked together in event order (where sends and receives
/// alternate, two passes would each stream the whole event table): each
/// send's time (send_index()), each receive's completion time (kNoValue if
/// cancelled or never completed) and posting time (receive_post()).
struct TimesAsRead {
  std::vector<int64_t> sends, completions, posts;
};

TimesAsRead times_as_read(const LocalTrace& trace) {
  const EventStore& events = trace.events;
  const std::size_t sends = trace.sends.size(), recvs = trace.recvs.size();
  TimesAsRead read{std::vector<int64_t>(sends), std::vector<int64_t>(recvs), std::vector<int64_t>(recvs)};
  const auto time_at = [&](uint32_t index) { return index == kNone ? kNoValue : events[index].time; };
  // The next send's event and the next receive's posting event stay at hand
  // until taken (each table entry is looked up once).
  std::size_t s = 0, r = 0;
  uint32_t send_at = sends > 0 ? send_index(trace.sends[0]) : kNone;
  uint32_t post_at = recvs > 0 ? receive_post(trace.recvs[0]) : kNone;
  while (s < sends || r < recvs) {
    if (r == recvs || (s < sends && send_at <= post_at)) {
      if (s + kPrefetchDistance < sends) {
        const uint32_t later = send_index(trace.sends[s + kPrefetchDistance]);
        if (later != kNone) events.prefetch(later);
      }
      read.sends[s++] = time_at(send_at);
      send_at = s < sends ? send_index(trace.sends[s]) : kNone;
      continue;
    }
    if (r + kPrefetchDistance < recvs) {
      const MessageOp& later = trace.recvs[r + kPrefetchDistance];
      if (receive_post(later) != kNone) events.prefetch(receive_post(later));
      if (later.complete_event != kNone) events.prefetch(later.complete_event);
    }
    const MessageOp& op = trace.recvs[r];
    read.posts[r] = time_at(post_at);
    read.completions[r] = op.cancelled ? kNoValue : time_at(op.complete_event);
    ++r;
    post_at = r < recvs ? receive_post(trace.recvs[r]) : kNone;
  }
  return read;
}

/// Round 0 on the times as read: each send's time and, exchanged to its
/// receiver, its send enter; each receive's posting time; how many receives
/// complete before their send began. From the times the reader recorded
/// (LocalTrace::send_post_times, recv_times: sequential, no lookups in the
/// events; each table freed once read), else from the events (a trace built
/// without TraceBuilder).
struct FirstRound {
  std::vector<int64_t> sends, send_enters, posts;
  uint64_t violations = 0;
};

FirstRound first_round(LocalTrace& trace, const MessageMatching& matching, MPI_Comm world) {
  FirstRound round;
  const auto count = [&](std::size_t r, int64_t completion) {
    const int64_t send = round.send_enters[r];
    if (completion != kNoValue && send != kNoValue && completion < send) ++round.violations;
  };
  if (trace.send_post_times.size() == trace.sends.size() && trace.recv_times.size() == trace.recvs.size()) {
    round.sends.resize(trace.sends.size());
    trace.send_post_times.for_each([&](uint32_t s, int64_t time) { round.sends[s] = time; });
    trace.send_post_times = {};
    round.send_enters = matching.to_receivers(round.sends, world);
    round.posts.resize(trace.recvs.size());
    trace.recv_times.for_each([&](uint32_t r, const ReceiveTimes& times) {
      round.posts[r] = times.post;
      count(r, times.completion);
    });
    trace.recv_times = {};
    return round;
  }
  TimesAsRead read = times_as_read(trace);
  round.sends = std::move(read.sends);
  round.send_enters = matching.to_receivers(round.sends, world);
  for (std::size_t r = 0; r < read.completions.size(); ++r) count(r, read.completions[r]);
  round.posts = std::move(read.posts);
  return round;
}

}  // namespace

void clock_forward(const std::vector<int64_t>& original, const std::vector<ReceiveAt>& receives,
                   const std::vector<int64_t>& send_enters, const ClockConditionParameters& p,
                   std::vector<int64_t>& corrected, ClockCorrection& stats) {
  const double keep = 1.0 - p.slope;
  corrected.resize(original.size());
  std::size_t k = 0;
  for (std::size_t i = 0; i < original.size(); ++i) {
    int64_t c = unconstrained(original, corrected, i, keep);
    int64_t latest_send = INT64_MIN;
    uint64_t violating = 0;
    for (; k < receives.size() && receives[k].event == i; ++k) {
      const int64_t send = send_enters[receives[k].recv];
      if (send == kNoValue || send <= c) continue;
      ++violating;
      latest_send = std::max(latest_send, send);
    }
    stats.violations += violating;
    if (violating > 0 && p.correct) {
      const int64_t moved_to = latest_send + p.min_latency;
      stats.corrected += violating;
      stats.moved += moved_to - c;
      stats.max_jump = std::max(stats.max_jump, moved_to - c);
      c = moved_to;
    }
    corrected[i] = c;
  }
}

void clock_backward(const std::vector<int64_t>& original, const std::vector<ReceiveAt>& receives,
                    const std::vector<int64_t>& limits, const ClockConditionParameters& p,
                    std::vector<int64_t>& corrected, ClockCorrection& stats) {
  const double keep = 1.0 - p.slope;
  // The jumps, from the forward pass's values, before anything moves.
  std::vector<std::pair<std::size_t, int64_t>> jumps;
  for (std::size_t k = 0; k < receives.size(); ++k) {
    const std::size_t i = receives[k].event;
    if (!jumps.empty() && jumps.back().first == i) continue;
    const int64_t jump = corrected[i] - unconstrained(original, corrected, i, keep);
    if (jump > 0) jumps.emplace_back(i, jump);
  }
  std::vector<std::pair<std::size_t, int64_t>> shifts;
  std::size_t window_start = 0;  // events after the previous correction
  for (const auto& [i, jump] : jumps) {
    int64_t cap = INT64_MAX;
    for (std::size_t j = i; j-- > window_start;) {
      const double ramp = static_cast<double>(jump) -
                          p.slope * static_cast<double>(corrected[i] - corrected[j]);
      if (ramp < 1.0) break;
      cap = std::min(cap, limits[j]);
      const int64_t shift = std::min(static_cast<int64_t>(ramp), cap);
      if (shift <= 0) break;
      shifts.emplace_back(j, shift);
    }
    window_start = i + 1;
  }
  for (const auto& [j, shift] : shifts) corrected[j] += shift;
  for (std::size_t i = 0; i < corrected.size(); ++i) {
    stats.max_shift = std::max(stats.max_shift, corrected[i] - original[i]);
  }
}

ClockCorrection correct_clock_condition(LocalTrace& trace, const MessageMatching& matching,
                                        MPI_Comm world, const ClockConditionParameters& p,
                                        MessageTimes* times) {
  ClockCorrection stats;
  // Round 0 on the times as read: on one node (one time base) nothing
  // violates, and nothing beyond one pass over the times as read and one
  // exchange is done (the receives' posting times serve the forward replay).
  FirstRound first = first_round(trace, matching, world);
  stats.violations = first.violations;
  std::vector<int64_t> sends = std::move(first.sends);
  std::vector<int64_t> send_enters = std::move(first.send_enters);
  int any = stats.violations > 0 ? 1 : 0;
  vmpi::Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, world);
  if (any == 0 || !p.correct) {
    if (times != nullptr) *times = MessageTimes{std::move(send_enters), std::move(first.posts)};
    return stats;
  }

  std::vector<ReceiveAt> receives;
  trace.recvs.for_each([&](uint32_t r, const MessageOp& op) {
    if (!op.cancelled && op.complete_event != kNone) receives.push_back({op.complete_event, r});
  });
  // Usually in event order already (a receive's entry is made at its
  // completion unless it was posted earlier): sorting costs far more than checking.
  const auto by_event = [](const ReceiveAt& a, const ReceiveAt& b) { return a.event < b.event; };
  if (!std::is_sorted(receives.begin(), receives.end(), by_event)) {
    std::sort(receives.begin(), receives.end(), by_event);
  }
  stats.times_changed = true;
  std::vector<int64_t> original(trace.events.size());
  for (std::size_t i = 0; i < original.size(); ++i) original[i] = trace.events[i].time;
  std::vector<int64_t> corrected;
  const uint64_t found = stats.violations;
  for (int round = 0; round < kMaxRounds; ++round) {
    stats = ClockCorrection{};
    stats.times_changed = true;
    clock_forward(original, receives, send_enters, p, corrected, stats);
    std::vector<int64_t> updated = send_times(trace, corrected);
    int changed = updated != sends ? 1 : 0;
    vmpi::Allreduce(MPI_IN_PLACE, &changed, 1, MPI_INT, MPI_MAX, world);
    if (changed == 0) break;
    sends = std::move(updated);
    send_enters = matching.to_receivers(sends, world);
  }
  stats.violations = found;  // as read; the forward pass counts those it corrected

  // How far each send may move in the backward pass: up to its receive.
  std::vector<int64_t> recv_times(trace.recvs.size(), kNoValue);
  for (const ReceiveAt& at : receives) recv_times[at.recv] = corrected[at.event];
  const std::vector<int64_t> recv_at_senders = matching.to_senders(recv_times, world);
  std::vector<int64_t> limits(original.size(), INT64_MAX);
  for (std::size_t s = 0; s < recv_at_senders.size(); ++s) {
    const uint32_t index = send_index(trace.sends[s]);
    if (recv_at_senders[s] == kNoValue || index == kNone) continue;
    limits[index] = std::min(limits[index], std::max<int64_t>(0, recv_at_senders[s] - corrected[index]));
  }
  clock_backward(original, receives, limits, p, corrected, stats);
  for (std::size_t i = 0; i < corrected.size(); ++i) trace.events[i].time = corrected[i];
  return stats;
}

std::vector<ClockCorrection> gather_clock_corrections(const ClockCorrection& mine, MPI_Comm world) {
  int rank = 0, size = 0;
  vmpi::Comm_rank(world, &rank);
  vmpi::Comm_size(world, &size);
  const int64_t row[5] = {static_cast<int64_t>(mine.violations), static_cast<int64_t>(mine.corrected),
                          mine.moved, mine.max_jump, mine.max_shift};
  std::vector<int64_t> all(rank == 0 ? 5 * static_cast<std::size_t>(size) : 0);
  vmpi::Gather(row, 5, MPI_INT64_T, all.data(), 5, MPI_INT64_T, 0, world);
  std::vector<ClockCorrection> rows;
  for (std::size_t r = 0; 5 * r < all.size(); ++r) {
    rows.push_back(ClockCorrection{static_cast<uint64_t>(all[5 * r]), static_cast<uint64_t>(all[5 * r + 1]),
                                   all[5 * r + 2], all[5 * r + 3], all[5 * r + 4]});
  }
  return rows;
}

}  // namespace orrery::analyzer

// The timeline's window query (TimelineSource::window, timeline_data.h):
// per rank the spans, waits and marks inside [t0, t1] at the request's
// pixel width, and a bounded sample of the messages crossing it.

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include "callpath_match.h"
#include "orrery/error.h"
#include "timeline_data.h"
#include "timeline_summary.h"
#include "timeline_summary_view.h"

namespace orrery::viewer {
namespace {

namespace tl = analyzer::timeline;

/// Seconds rounded to nanoseconds, which keeps the JSON short.
double ns(double seconds) { return std::round(seconds * 1e9) / 1e9; }

/// The selected instances within [t0, t1], those closer than a pixel merged:
/// [begin, end, time inside] each.
nlohmann::json merged_instances(const analyzer::timeline::RankTimeline& trace, const std::vector<uint8_t>& selected,
                                double t0, double t1, double pixel) {
  nlohmann::json out = nlohmann::json::array();
  std::array<double, 3> mark{};
  bool open = false;
  for (uint32_t i = 0; i < trace.instances.size(); ++i) {
    if (selected[i] == 0) continue;
    const double b = std::max(trace.instances[i].begin, t0);
    const double e = std::min(trace.instances[i].end, t1);
    if (e <= b) continue;
    if (open && b - mark[1] < pixel) {
      mark[1] = std::max(mark[1], e);
      mark[2] += e - b;
      continue;
    }
    if (open) out.push_back({ns(mark[0]), ns(mark[1]), ns(mark[2])});
    mark = {b, e, e - b};
    open = true;
  }
  if (open) out.push_back({ns(mark[0]), ns(mark[1]), ns(mark[2])});
  return out;
}

/// Short segments of one row gathered into one span at least a pixel wide.
/// It keeps, per kind, the exact time and its longest region, so the page
/// can draw each kind's share of the span (never more than its real time).
struct Bucket {
  double begin = 0;
  double end = 0;
  double busy = 0;
  uint32_t count = 0;
  uint32_t instance = 0;
  std::vector<std::pair<uint32_t, double>> regions;  // region -> time, few per bucket

  void add(double b, double e, uint32_t region, uint32_t inst) {
    if (count == 0) {
      begin = b;
      regions.clear();
      busy = 0;
    }
    end = e;
    busy += e - b;
    ++count;
    instance = inst;
    auto it = std::find_if(regions.begin(), regions.end(),
                           [region](const auto& r) { return r.first == region; });
    if (it == regions.end()) regions.emplace_back(region, e - b);
    else it->second += e - b;
  }

  /// Per kind present: [its longest region, the kind's total time], largest first.
  [[nodiscard]] nlohmann::json parts(const std::vector<tl::Region>& defs) const {
    std::array<double, 3> total{};
    std::array<std::pair<uint32_t, double>, 3> longest{};
    for (const auto& [region, time] : regions) {
      const auto kind = static_cast<std::size_t>(defs.at(region).kind);
      total.at(kind) += time;
      if (time > longest.at(kind).second) longest.at(kind) = {region, time};
    }
    std::array<std::size_t, 3> order{0, 1, 2};
    std::sort(order.begin(), order.end(), [&total](std::size_t a, std::size_t b) { return total.at(a) > total.at(b); });
    nlohmann::json out = nlohmann::json::array();
    for (const std::size_t k : order) {
      if (total.at(k) > 0) out.push_back({longest.at(k).first, ns(total.at(k))});
    }
    return out;
  }
};

/// The window of a timeline request: its time range and one pixel's time.
struct Window {
  double t0;
  double t1;
  double pixel;
};

/// Messages crossing the window; beyond the cap an evenly spaced selection
/// (in rank, then time order) is sent, so every part of the view keeps some.
/// Memory stays bounded: past twice the cap every other one kept is dropped
/// and from then on only every `stride`-th message is looked at.
class MessageSample {
 public:
  MessageSample(const Window& view, std::size_t max_messages)
      : view_(view), max_(max_messages), cap_(std::max<std::size_t>(1, max_messages)) {}
  void add(const Message& m) {
    if (!(m.send <= view_.t1 && m.receive >= view_.t0)) return;
    if (count_++ % stride_ != 0) return;
    crossing_.push_back(m);
    if (crossing_.size() >= 2 * cap_) {
      for (std::size_t k = 0; k < crossing_.size() / 2; ++k) crossing_[k] = crossing_[2 * k];
      crossing_.resize(crossing_.size() / 2);
      stride_ *= 2;
    }
  }
  [[nodiscard]] nlohmann::json selection() const {
    nlohmann::json messages = nlohmann::json::array();
    for (std::size_t k = 0; k < kept(); ++k) {
      const Message& m = crossing_[k * crossing_.size() / kept()];
      messages.push_back({m.sender, ns(m.send), m.receiver, ns(m.receive), m.bytes, m.tag});
    }
    return messages;
  }
  [[nodiscard]] std::size_t count() const { return count_; }
  [[nodiscard]] bool truncated() const { return kept() < count_; }

 private:
  [[nodiscard]] std::size_t kept() const { return std::min(crossing_.size(), max_); }

  Window view_;
  std::size_t max_;
  std::size_t cap_;
  std::vector<Message> crossing_;
  std::size_t stride_ = 1;
  std::size_t count_ = 0;
};

/// Spans: the innermost region over time, short pieces merged to a pixel.
nlohmann::json spans_in(const tl::RankTimeline& trace, const std::vector<tl::Region>& regions,
                        const Window& view) {
  nlohmann::json spans = nlohmann::json::array();
  Bucket bucket;
  auto emit_bucket = [&] {
    if (bucket.count == 0) return;
    const nlohmann::json parts = bucket.parts(regions);
    const uint32_t region = parts.front()[0].get<uint32_t>();  // the dominant kind's longest region
    const int64_t instance = bucket.count == 1 ? int64_t{bucket.instance} : -1;
    spans.push_back({ns(bucket.begin), ns(bucket.end), region, instance, ns(bucket.busy), bucket.count, parts});
    bucket.count = 0;
  };
  auto first = std::lower_bound(trace.segments.begin(), trace.segments.end(), view.t0,
                                [](const tl::Segment& s, double t) { return s.end <= t; });
  for (auto it = first; it != trace.segments.end() && it->begin < view.t1; ++it) {
    const double b = std::max(it->begin, view.t0);
    const double e = std::min(it->end, view.t1);
    if (e <= b) continue;
    const uint32_t region = trace.instances[it->instance].region;
    if (e - b >= view.pixel) {
      emit_bucket();
      spans.push_back({ns(b), ns(e), region, it->instance, ns(e - b), 1});
      continue;
    }
    bucket.add(b, e, region, it->instance);
    if (bucket.end - bucket.begin >= view.pixel) emit_bucket();
  }
  emit_bucket();
  return spans;
}

/// The late-sender waits; waits closer than a pixel are merged;
/// [begin, end, total, count]: the page draws the total, not the extent.
nlohmann::json waits_in(const std::vector<CallWait>& calls, const Window& view) {
  nlohmann::json waits = nlohmann::json::array();
  std::array<double, 3> wait{};  // begin, end, total of the wait being merged
  uint32_t wait_count = 0;
  auto emit_wait = [&] {
    if (wait_count > 0) waits.push_back({ns(wait[0]), ns(wait[1]), ns(wait[2]), wait_count});
    wait_count = 0;
  };
  for (const CallWait& call : calls) {
    if (call.exit < view.t0) continue;
    const double b = std::max(call.enter, view.t0);
    const double e = std::min(call.wait_end, view.t1);
    if (call.wait_end <= call.enter || e <= b) continue;
    if (wait_count > 0 && b - wait[1] < view.pixel) {
      wait[1] = std::max(wait[1], e);
      wait[2] += e - b;
      ++wait_count;
    } else {
      emit_wait();
      wait = {b, e, e - b};
      wait_count = 1;
    }
  }
  emit_wait();
  return waits;
}

/// The instances of the call paths on the critical path at rank `r`, merged to a pixel.
nlohmann::json critical_marks(const tl::Definitions& defs, const tl::RankTimeline& trace,
                              const TimelineWindow& request, uint32_t r, const Window& view) {
  const auto it = request.critical.find(r);
  if (it == request.critical.end()) return nlohmann::json::array();
  std::vector<uint8_t> on_path(trace.instances.size(), 0);
  for (const auto& chain : it->second) {
    const auto match = match_callpath(defs, trace, chain);
    for (std::size_t i = 0; i < on_path.size(); ++i) on_path[i] |= match.exact[i];
  }
  return merged_instances(trace, on_path, view.t0, view.t1, view.pixel);
}

/// The answer's frame around its rows (messages and the rows' source are added by the caller).
nlohmann::json window_answer(const TimelineWindow& request, uint32_t rank_count, nlohmann::json rows) {
  return {{"t0", request.t0},          {"t1", request.t1},           {"width", request.width},
          {"first_rank", request.first_rank}, {"rank_count", rank_count}, {"rows", std::move(rows)}};
}

/// A rank's row: its spans and waits, and the marks the request asks for.
nlohmann::json row_of(const tl::Definitions& defs, const tl::RankTimeline& trace, const std::vector<CallWait>& waits,
                      const TimelineWindow& request, uint32_t r, const Window& view) {
  nlohmann::json row = {{"rank", r}, {"spans", spans_in(trace, defs.regions, view)}, {"waits", waits_in(waits, view)}};
  // The selected call path's instances, merged to a pixel: [begin, end, time inside].
  if (!request.callpath.empty()) {
    row["marks"] = merged_instances(trace, match_callpath(defs, trace, request.callpath).exact, view.t0, view.t1,
                                    view.pixel);
  }
  // The instances of the call paths on the critical path at this rank, likewise.
  if (!request.critical.empty()) row["critical"] = critical_marks(defs, trace, request, r, view);
  return row;
}

}  // namespace

nlohmann::json TimelineSource::window(const TimelineWindow& request) {
  const auto& defs = definitions();
  const auto rank_count = static_cast<uint32_t>(defs.ranks.size());
  if (request.first_rank >= rank_count) {
    throw UsageError("first_rank must be below " + std::to_string(rank_count));
  }
  if (const auto from_summary = summary()) return summary_window(request, *from_summary);
  const uint32_t last = std::min(rank_count, request.first_rank + request.ranks);
  const Window view{request.t0, request.t1, (request.t1 - request.t0) / request.width};
  MessageSample messages(view, request.max_messages);
  nlohmann::json rows = nlohmann::json::array();
  for (uint32_t r = request.first_rank; r < last; ++r) {
    const auto data = rank(r);
    const auto& trace = data->trace;
    const auto matched = matches(r);
    // Receives on this rank: their messages.
    const auto& receives = trace.receives;
    auto from = std::lower_bound(receives.begin(), receives.end(), view.t0,
                                 [](const tl::MessageEnd& m, double t) { return m.time < t; });
    for (auto it = from; it != receives.end(); ++it) {
      const double send = matched->send_of_receive[static_cast<std::size_t>(it - receives.begin())];
      if (std::isnan(send)) continue;
      messages.add({it->peer, r, send, it->time, it->call_enter, it->bytes, it->tag, 0, it->instance});
    }
    // Sends from this rank to ranks not in the request (their receives are not visited).
    const auto& sends = trace.sends;
    for (uint32_t i = 0; i < sends.size() && sends[i].time <= view.t1; ++i) {
      if (sends[i].peer >= request.first_rank && sends[i].peer < last) continue;
      const double receive = matched->receive_of_send[i];
      if (std::isnan(receive)) continue;
      messages.add({r, sends[i].peer, sends[i].time, receive, receive, sends[i].bytes, sends[i].tag,
                    sends[i].instance, 0});
    }
    rows.push_back(row_of(defs, trace, call_waits(r), request, r, view));
  }
  nlohmann::json answer = window_answer(request, rank_count, std::move(rows));
  answer["messages"] = messages.selection();
  answer["message_count"] = messages.count();
  answer["messages_truncated"] = messages.truncated();
  return answer;
}

// From the summary: each rank's row from the coarsest level whose bin is at
// most a pixel, else from its events inside the window (read from the nearest
// checkpoint, instance indices those of the whole rank). No messages: they
// would need every rank's sends matched, which is what the summary avoids.
nlohmann::json TimelineSource::summary_window(const TimelineWindow& request, const TimelineSummary& summary) {
  const auto& defs = definitions();
  const auto rank_count = static_cast<uint32_t>(defs.ranks.size());
  const uint32_t last = std::min(rank_count, request.first_rank + request.ranks);
  const Window view{request.t0, request.t1, (request.t1 - request.t0) / request.width};
  const std::optional<uint32_t> level = summary_level(summary, view.pixel);
  nlohmann::json rows = nlohmann::json::array();
  uint64_t events = 0;
  for (uint32_t r = request.first_rank; r < last; ++r) {
    if (level) {
      rows.push_back(summary_row(summary, defs, r, *level, view.t0, view.t1, request.width));
      continue;
    }
    WindowEvents read;
    {
      const std::lock_guard io(io_mutex_);
      read = read_window(summary, defs, r, view.t0, view.t1);
    }
    events += read.events;
    nlohmann::json row = row_of(defs, read.trace, read.waits, request, r, view);
    for (auto& span : row["spans"]) {
      if (span[3].get<int64_t>() >= 0) span[3] = read.instance_ids.at(span[3].get<std::size_t>());
    }
    rows.push_back(std::move(row));
  }
  nlohmann::json source = {{"from", level ? "summary" : "events"}, {"summary_bytes", summary.bytes()}};
  if (level) source["bin"] = summary.bin_seconds(*level);
  if (level) source["level"] = *level;
  else source["events_read"] = events;
  nlohmann::json answer = window_answer(request, rank_count, std::move(rows));
  answer["messages"] = nlohmann::json::array();
  answer["message_count"] = 0;
  answer["messages_truncated"] = false;
  answer["source"] = std::move(source);
  return answer;
}

}  // namespace orrery::viewer

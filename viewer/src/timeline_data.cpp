#include "timeline_data.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <utility>

#include "callpath_match.h"
#include "orrery/error.h"

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

std::shared_ptr<RankData> index_rank(tl::RankTimeline trace) {
  auto data = std::make_shared<RankData>();
  data->trace = std::move(trace);
  const auto& sends = data->trace.sends;
  const auto& receives = data->trace.receives;
  data->send_ordinal.resize(sends.size());
  data->receive_ordinal.resize(receives.size());
  for (uint32_t i = 0; i < sends.size(); ++i) {
    auto& list = data->sends_by_key[{sends[i].comm, sends[i].peer, sends[i].tag}];
    data->send_ordinal[i] = static_cast<uint32_t>(list.size());
    list.push_back(i);
  }
  for (uint32_t i = 0; i < receives.size(); ++i) {
    auto& list = data->receives_by_key[{receives[i].comm, receives[i].peer, receives[i].tag}];
    data->receive_ordinal[i] = static_cast<uint32_t>(list.size());
    list.push_back(i);
  }
  std::size_t index_bytes = 0;
  for (const auto* map : {&data->sends_by_key, &data->receives_by_key}) {
    for (const auto& [key, list] : *map) index_bytes += 64 + list.capacity() * sizeof(uint32_t);
  }
  data->bytes = data->trace.bytes() + index_bytes +
                (sends.size() + receives.size()) * sizeof(uint32_t);
  return data;
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

}  // namespace

TimelineSource::TimelineSource(std::string experiment, std::size_t budget_bytes)
    : experiment_(std::move(experiment)), budget_(budget_bytes) {}

const tl::Definitions& TimelineSource::definitions() {
  std::call_once(definitions_once_, [this] {
    const std::lock_guard io(io_mutex_);
    definitions_ = tl::read_definitions(experiment_);
  });
  return *definitions_;
}

std::size_t TimelineSource::reads() const {
  const std::lock_guard lock(mutex_);
  return reads_;
}

std::size_t TimelineSource::cached_bytes() const {
  const std::lock_guard lock(mutex_);
  return cached_bytes_;
}

std::shared_ptr<const RankData> TimelineSource::rank(uint32_t r) {
  const auto& defs = definitions();
  if (r >= defs.ranks.size()) throw UsageError("no rank " + std::to_string(r) + " in the trace");
  std::unique_lock lock(mutex_);
  for (;;) {
    if (auto it = cache_.find(r); it != cache_.end()) {
      recency_.remove(r);
      recency_.push_front(r);
      return it->second;
    }
    if (!loading_[r]) break;
    loaded_.wait(lock);  // another request reads this rank
  }
  loading_[r] = true;
  lock.unlock();
  std::shared_ptr<const RankData> data;
  try {
    data = load(r);
  } catch (...) {
    lock.lock();
    loading_[r] = false;
    loaded_.notify_all();
    throw;
  }
  lock.lock();
  loading_[r] = false;
  ++reads_;
  cache_[r] = data;
  recency_.push_front(r);
  cached_bytes_ += data->bytes;
  // Drop the least recently used ranks beyond the budget; the one just read stays.
  while (cached_bytes_ > budget_ && recency_.size() > 1) {
    const uint32_t victim = recency_.back();
    recency_.pop_back();
    cached_bytes_ -= cache_[victim]->bytes;
    cache_.erase(victim);
  }
  loaded_.notify_all();
  return data;
}

std::shared_ptr<const RankData> TimelineSource::load(uint32_t r) {
  const auto& defs = definitions();
  tl::RankTimeline trace;
  {
    const std::lock_guard io(io_mutex_);
    trace = tl::read_rank(defs, r);
  }
  return index_rank(std::move(trace));
}

std::shared_ptr<const TimelineSource::Matches> TimelineSource::matches(uint32_t r) {
  {
    const std::lock_guard lock(mutex_);
    if (auto it = matches_.find(r); it != matches_.end()) return it->second;
  }
  const auto data = rank(r);
  auto out = std::make_shared<Matches>();
  const double none = std::nan("");
  out->send_of_receive.assign(data->trace.receives.size(), none);
  out->receive_of_send.assign(data->trace.sends.size(), none);
  // The peers, each looked up once (a lookup takes the cache's lock).
  std::map<uint32_t, std::shared_ptr<const RankData>> peers;
  const auto rank_count = definitions().ranks.size();
  auto peer = [&](uint32_t p) -> const RankData* {
    if (p >= rank_count) return nullptr;
    auto& slot = peers[p];
    if (!slot) slot = rank(p);
    return slot.get();
  };
  const auto& trace = data->trace;
  for (uint32_t i = 0; i < trace.receives.size(); ++i) {
    const auto& receive = trace.receives[i];
    const RankData* sender = peer(receive.peer);
    if (sender == nullptr) continue;
    const auto it = sender->sends_by_key.find({receive.comm, r, receive.tag});
    const uint32_t ordinal = data->receive_ordinal[i];
    if (it != sender->sends_by_key.end() && ordinal < it->second.size()) {
      out->send_of_receive[i] = sender->trace.sends[it->second[ordinal]].time;
    }
  }
  for (uint32_t i = 0; i < trace.sends.size(); ++i) {
    const auto& send = trace.sends[i];
    const RankData* receiver = peer(send.peer);
    if (receiver == nullptr) continue;
    const auto it = receiver->receives_by_key.find({send.comm, r, send.tag});
    const uint32_t ordinal = data->send_ordinal[i];
    if (it != receiver->receives_by_key.end() && ordinal < it->second.size()) {
      out->receive_of_send[i] = receiver->trace.receives[it->second[ordinal]].time;
    }
  }
  const std::lock_guard lock(mutex_);
  return matches_.emplace(r, std::move(out)).first->second;
}

nlohmann::json TimelineSource::info() {
  const auto& defs = definitions();
  nlohmann::json regions = nlohmann::json::array();
  static constexpr std::array<const char*, 3> kKinds{"compute", "mpi", "measurement"};
  for (const auto& region : defs.regions) {
    regions.push_back({{"name", region.name}, {"kind", kKinds.at(static_cast<std::size_t>(region.kind))}});
  }
  nlohmann::json ranks = nlohmann::json::array();
  for (std::size_t r = 0; r < defs.ranks.size(); ++r) ranks.push_back("rank " + std::to_string(r));
  return {{"available", true},
          {"experiment", experiment_},
          {"duration", defs.duration},
          {"ranks", ranks},
          {"regions", regions}};
}

nlohmann::json TimelineSource::window(const TimelineWindow& request) {
  const auto& defs = definitions();
  const auto rank_count = static_cast<uint32_t>(defs.ranks.size());
  if (request.first_rank >= rank_count) {
    throw UsageError("first_rank must be below " + std::to_string(rank_count));
  }
  const uint32_t last = std::min(rank_count, request.first_rank + request.ranks);
  const double t0 = request.t0;
  const double t1 = request.t1;
  const double pixel = (t1 - t0) / request.width;

  nlohmann::json rows = nlohmann::json::array();
  // Messages crossing the window; beyond the cap an evenly spaced selection
  // (in rank, then time order) is sent, so every part of the view keeps some.
  // Memory stays bounded: past twice the cap every other one kept is dropped
  // and from then on only every `stride`-th message is looked at.
  std::vector<Message> crossing;
  std::size_t stride = 1;
  std::size_t message_count = 0;
  const std::size_t cap = std::max<std::size_t>(1, request.max_messages);
  auto add_message = [&](const Message& m) {
    if (!(m.send <= t1 && m.receive >= t0)) return;
    if (message_count++ % stride != 0) return;
    crossing.push_back(m);
    if (crossing.size() >= 2 * cap) {
      for (std::size_t k = 0; k < crossing.size() / 2; ++k) crossing[k] = crossing[2 * k];
      crossing.resize(crossing.size() / 2);
      stride *= 2;
    }
  };

  for (uint32_t r = request.first_rank; r < last; ++r) {
    const auto data = rank(r);
    const auto& trace = data->trace;
    // Spans: the innermost region over time, short pieces merged to a pixel.
    nlohmann::json spans = nlohmann::json::array();
    Bucket bucket;
    auto emit_bucket = [&] {
      if (bucket.count == 0) return;
      const nlohmann::json parts = bucket.parts(defs.regions);
      const uint32_t region = parts.front()[0].get<uint32_t>();  // the dominant kind's longest region
      const int64_t instance = bucket.count == 1 ? int64_t{bucket.instance} : -1;
      spans.push_back({ns(bucket.begin), ns(bucket.end), region, instance, ns(bucket.busy), bucket.count, parts});
      bucket.count = 0;
    };
    auto first = std::lower_bound(trace.segments.begin(), trace.segments.end(), t0,
                                  [](const tl::Segment& s, double t) { return s.end <= t; });
    for (auto it = first; it != trace.segments.end() && it->begin < t1; ++it) {
      const double b = std::max(it->begin, t0);
      const double e = std::min(it->end, t1);
      if (e <= b) continue;
      const uint32_t region = trace.instances[it->instance].region;
      if (e - b >= pixel) {
        emit_bucket();
        spans.push_back({ns(b), ns(e), region, it->instance, ns(e - b), 1});
        continue;
      }
      bucket.add(b, e, region, it->instance);
      if (bucket.end - bucket.begin >= pixel) emit_bucket();
    }
    emit_bucket();

    // Receives on this rank: their messages, and the late-sender waits.
    const auto matched = matches(r);
    const auto& receives = trace.receives;
    auto from = std::lower_bound(receives.begin(), receives.end(), t0,
                                 [](const tl::MessageEnd& m, double t) { return m.time < t; });
    for (auto it = from; it != receives.end(); ++it) {
      const double send = matched->send_of_receive[static_cast<std::size_t>(it - receives.begin())];
      if (std::isnan(send)) continue;
      add_message({it->peer, r, send, it->time, it->call_enter, it->bytes, it->tag, 0, it->instance});
    }
    // Waits closer than a pixel are merged; [begin, end, total, count]: the
    // page draws the total, not the extent.
    nlohmann::json waits = nlohmann::json::array();
    std::array<double, 3> wait{};  // begin, end, total of the wait being merged
    uint32_t wait_count = 0;
    auto emit_wait = [&] {
      if (wait_count > 0) waits.push_back({ns(wait[0]), ns(wait[1]), ns(wait[2]), wait_count});
      wait_count = 0;
    };
    for (const CallWait& call : call_waits(r)) {
      if (call.exit < t0) continue;
      const double b = std::max(call.enter, t0);
      const double e = std::min(call.wait_end, t1);
      if (call.wait_end <= call.enter || e <= b) continue;
      if (wait_count > 0 && b - wait[1] < pixel) {
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

    // The selected call path's instances, merged to a pixel: [begin, end, time inside].
    nlohmann::json marks = nlohmann::json::array();
    if (!request.callpath.empty()) {
      marks = merged_instances(trace, match_callpath(defs, trace, request.callpath).exact, t0, t1, pixel);
    }
    // The instances of the call paths on the critical path at this rank, likewise.
    nlohmann::json critical = nlohmann::json::array();
    if (const auto it = request.critical.find(r); it != request.critical.end()) {
      std::vector<uint8_t> on_path(trace.instances.size(), 0);
      for (const auto& chain : it->second) {
        const auto match = match_callpath(defs, trace, chain);
        for (std::size_t i = 0; i < on_path.size(); ++i) on_path[i] |= match.exact[i];
      }
      critical = merged_instances(trace, on_path, t0, t1, pixel);
    }

    // Sends from this rank to ranks not in the request (their receives are not visited).
    const auto& sends = trace.sends;
    for (uint32_t i = 0; i < sends.size() && sends[i].time <= t1; ++i) {
      if (sends[i].peer >= request.first_rank && sends[i].peer < last) continue;
      const double receive = matched->receive_of_send[i];
      if (std::isnan(receive)) continue;
      add_message({r, sends[i].peer, sends[i].time, receive, receive, sends[i].bytes, sends[i].tag,
                   sends[i].instance, 0});
    }
    nlohmann::json row = {{"rank", r}, {"spans", std::move(spans)}, {"waits", std::move(waits)}};
    if (!request.callpath.empty()) row["marks"] = std::move(marks);
    if (!request.critical.empty()) row["critical"] = std::move(critical);
    rows.push_back(std::move(row));
  }
  nlohmann::json messages = nlohmann::json::array();
  const std::size_t keep = std::min(crossing.size(), request.max_messages);
  for (std::size_t k = 0; k < keep; ++k) {
    const Message& m = crossing[k * crossing.size() / keep];
    messages.push_back({m.sender, ns(m.send), m.receiver, ns(m.receive), m.bytes, m.tag});
  }
  const bool truncated = keep < message_count;
  return {{"t0", t0},
          {"t1", t1},
          {"width", request.width},
          {"first_rank", request.first_rank},
          {"rank_count", rank_count},
          {"rows", std::move(rows)},
          {"messages", std::move(messages)},
          {"message_count", message_count},
          {"messages_truncated", truncated}};
}

std::vector<CallWait> TimelineSource::call_waits(uint32_t r) {
  const auto data = rank(r);
  const auto matched = matches(r);
  const auto& receives = data->trace.receives;
  std::vector<CallWait> out;
  // One wait per receiving call: a call completing several receives (a
  // Waitall) waits for its latest sender (docs/design.md §4), so its receives are
  // taken together; they share the call and its exit time.
  double latest = -std::numeric_limits<double>::infinity();
  auto close = [&](std::size_t end) {
    if (out.empty() || latest == -std::numeric_limits<double>::infinity()) {
      if (!out.empty()) out.pop_back();
      return;
    }
    out.back().wait_end = std::max(out.back().enter, std::min(latest, out.back().exit));
    out.back().end_receive = end;
  };
  for (std::size_t i = 0; i < receives.size(); ++i) {
    const auto& receive = receives[i];
    const bool same_call = !out.empty() && receive.instance != tl::kNoInstance &&
                           receive.instance == out.back().instance;
    if (!same_call) {
      close(i);
      latest = -std::numeric_limits<double>::infinity();
      CallWait call;
      call.instance = receive.instance;
      call.enter = receive.call_enter;
      call.exit = receive.time;
      call.first_receive = i;
      out.push_back(call);
    }
    const double send = matched->send_of_receive[i];
    if (std::isnan(send)) continue;
    if (send > latest) {
      latest = send;
      out.back().sender = receive.peer;
    }
  }
  close(receives.size());
  return out;
}

std::optional<tl::Instance> TimelineSource::worst_instance(uint32_t r, const std::vector<std::string>& chain) {
  const auto data = rank(r);
  const auto& instances = data->trace.instances;
  const CallpathMatch match = match_callpath(definitions(), data->trace, chain);
  if (!match.any()) return std::nullopt;
  // The longest late-sender wait inside the call path's instances (or their callees).
  std::optional<tl::Instance> worst;
  double worst_wait = 0;
  for (const CallWait& call : call_waits(r)) {
    if (call.instance == tl::kNoInstance || match.in_subtree[call.instance] == 0) continue;
    if (call.wait() > worst_wait) {
      worst_wait = call.wait();
      worst = instances[call.instance];
    }
  }
  if (worst) return worst;
  for (uint32_t i = 0; i < instances.size(); ++i) {
    if (match.exact[i] != 0 && (!worst || instances[i].end - instances[i].begin > worst->end - worst->begin)) {
      worst = instances[i];
    }
  }
  return worst;
}

TimelineSource::InstanceInfo TimelineSource::instance(uint32_t r, uint32_t index) {
  const auto data = rank(r);
  const auto& instances = data->trace.instances;
  if (index >= instances.size()) {
    throw UsageError("rank " + std::to_string(r) + " has no instance " + std::to_string(index));
  }
  InstanceInfo out{instances[index], {}, {}, {}, 0, 0};
  const auto& regions = definitions().regions;
  for (uint32_t i = index; i != tl::kNoInstance; i = instances[i].parent) {
    out.path.push_back(regions.at(instances[i].region).name);
  }
  std::reverse(out.path.begin(), out.path.end());
  // The messages of this call (at most a few dozen are reported by the API).
  for (const auto& send : data->trace.sends) {
    if (send.instance == index) out.sends.push_back(send);
  }
  for (const auto& receive : data->trace.receives) {
    if (receive.instance == index) out.receives.push_back(receive);
  }
  for (const CallWait& call : call_waits(r)) {
    if (call.instance == index) {
      out.wait = call.wait();
      out.wait_sender = call.sender;
    }
  }
  return out;
}

}  // namespace orrery::viewer

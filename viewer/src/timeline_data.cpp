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
  summary();  // built (or checked) on first open, so that the first window does not wait for it
  return {{"available", true},
          {"summary", summary_status()},
          {"experiment", experiment_},
          {"duration", defs.duration},
          {"ranks", ranks},
          {"regions", regions}};
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

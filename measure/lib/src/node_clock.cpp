#include "node_clock.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>

namespace orrery::measure {
namespace {

using nlohmann::json;

/// Nanoseconds per event-clock tick between two pairs (1 for the monotonic clock).
double ns_per_tick(const ClockPair& first, const ClockPair& last) {
  if (!g_tsc_clock || last.ticks <= first.ticks || last.ns <= first.ns) return 1.0;
  return static_cast<double>(last.ns - first.ns) / static_cast<double>(last.ticks - first.ticks);
}

}  // namespace

void NodeClock::start(MPI_Comm world) noexcept {
  world_ = world;
  PMPI_Comm_rank(world, &world_rank_);
  PMPI_Comm_size(world, &world_size_);
  // Test hook: ORRERY_TEST_RANKS_PER_NODE=k pretends nodes of k consecutive
  // ranks, so one machine exercises the offsets between nodes.
  const char* pretend = std::getenv("ORRERY_TEST_RANKS_PER_NODE");
  const int per_node = pretend != nullptr ? std::atoi(pretend) : 0;
  const int split = per_node > 0
                        ? PMPI_Comm_split(world, world_rank_ / per_node, world_rank_, &node_)
                        : PMPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, world_rank_,
                                               MPI_INFO_NULL, &node_);
  if (split != MPI_SUCCESS) node_ = MPI_COMM_NULL;
  if (node_ != MPI_COMM_NULL) {
    PMPI_Comm_rank(node_, &node_rank_);
    PMPI_Comm_size(node_, &node_size_);
    leader_ = world_rank_;
    PMPI_Bcast(&leader_, 1, MPI_INT, 0, node_);
  } else {  // every rank its own node: its own fit, its own ping-pong
    leader_ = world_rank_;
  }
  first_ = shared_pair();
  offsets_.push_back(measure_offset());
}

void NodeClock::stop() noexcept {
  offsets_.push_back(measure_offset());
  last_ = shared_pair();
  stopped_ = true;
}

void NodeClock::release() noexcept {
  if (node_ != MPI_COMM_NULL) PMPI_Comm_free(&node_);
}

TimeConverter NodeClock::converter() const noexcept {
  return TimeConverter(first_.pair, stopped_ ? last_.pair : ClockPair::sample());
}

PreciseClockPair NodeClock::shared_pair() const noexcept {
  PreciseClockPair pair;
  if (node_rank_ == 0) pair = PreciseClockPair::sample();
  if (node_ != MPI_COMM_NULL) PMPI_Bcast(&pair, sizeof pair, MPI_BYTE, 0, node_);
  return pair;
}

// Ping-pong of each remote node's leader with rank 0, one node at a time;
// the round trip with the smallest delay gives the offset (rank-0 time -
// local time at its midpoint) and half that round trip its uncertainty.
// Ranks of rank 0's node share its CLOCK_MONOTONIC: offset exactly 0.
// The leader's result holds for its whole node (one clock).
ClockOffset NodeClock::measure_offset() const noexcept {
  constexpr int kRounds = 10;
  constexpr int kTag = 4711;
  ClockOffset best;
  const int remote = node_rank_ == 0 && leader_ != 0 ? 1 : 0;
  std::vector<int> remotes(static_cast<std::size_t>(world_size_), 0);
  PMPI_Gather(&remote, 1, MPI_INT, remotes.data(), 1, MPI_INT, 0, world_);
  best.time = monotonic_ns();
  if (world_rank_ == 0) {
    for (int peer = 1; peer < world_size_; ++peer) {
      if (remotes[static_cast<std::size_t>(peer)] == 0) continue;
      for (int i = 0; i < kRounds; ++i) {
        uint64_t ping = 0;
        PMPI_Recv(&ping, 1, MPI_UINT64_T, peer, kTag, world_, MPI_STATUS_IGNORE);
        const uint64_t master = monotonic_ns();
        PMPI_Send(&master, 1, MPI_UINT64_T, peer, kTag, world_);
      }
    }
  }
  uint64_t best_rtt = UINT64_MAX;
  for (int i = 0; remote != 0 && i < kRounds; ++i) {
    const uint64_t t1 = monotonic_ns();
    PMPI_Send(&t1, 1, MPI_UINT64_T, 0, kTag, world_);
    uint64_t master = 0;
    PMPI_Recv(&master, 1, MPI_UINT64_T, 0, kTag, world_, MPI_STATUS_IGNORE);
    const uint64_t t2 = monotonic_ns();
    if (t2 - t1 < best_rtt) {
      best_rtt = t2 - t1;
      best.time = t1 + (t2 - t1) / 2;
      best.offset = static_cast<int64_t>(master) - static_cast<int64_t>(best.time);
      best.stddev = static_cast<double>(best_rtt) / 2.0 * 1e-9;
    }
  }
  if (node_ != MPI_COMM_NULL) PMPI_Bcast(&best, sizeof best, MPI_BYTE, 0, node_);
  return best;
}

json NodeClock::describe(const std::string& host) const {
  json entry = {{"node_leader", leader_}};
  if (node_rank_ != 0) return entry;
  const double rate = ns_per_tick(first_.pair, last_.pair);
  json pairs = json::array();
  for (const PreciseClockPair* p : {&first_, &last_}) {
    pairs.push_back({{"ticks", p->pair.ticks},
                     {"monotonic_ns", p->pair.ns},
                     {"uncertainty_ns", static_cast<double>(p->uncertainty_ticks) * rate}});
  }
  json offsets = json::array();
  for (const ClockOffset& o : offsets_) {
    offsets.push_back({{"monotonic_ns", o.time}, {"offset_ns", o.offset}, {"uncertainty_ns", o.stddev * 1e9}});
  }
  entry["host"] = host;
  entry["ranks_on_node"] = node_size_;
  entry["tick_rate_hz"] = g_tsc_clock ? 1e9 / rate : 1e9;
  entry["pairs"] = pairs;
  entry["offsets"] = offsets;
  return entry;
}

json NodeClock::summarize(const std::vector<json>& per_rank) {
  std::map<int, json> nodes;
  for (std::size_t r = 0; r < per_rank.size(); ++r) {
    const json& entry = per_rank[r];
    if (!entry.is_object() || !entry.contains("node_leader")) continue;
    const int leader = entry["node_leader"].get<int>();
    json& node = nodes[leader];
    if (entry.contains("pairs")) {
      const json ranks = node.is_object() && node.contains("ranks") ? node["ranks"] : json::array();
      node = entry;
      node.erase("node_leader");
      node["leader"] = leader;
      node["ranks"] = ranks;
    }
    node["ranks"].push_back(r);
  }
  json list = json::array();
  double worst_offset = 0, worst_pair = 0;
  for (auto& [leader, node] : nodes) {
    for (const json& o : node.value("offsets", json::array())) {
      worst_offset = std::max(worst_offset, o.value("uncertainty_ns", 0.0));
    }
    for (const json& p : node.value("pairs", json::array())) {
      worst_pair = std::max(worst_pair, p.value("uncertainty_ns", 0.0));
    }
    list.push_back(node);
  }
  return {{"source", g_tsc_clock ? "tsc" : "monotonic"},
          {"time_base", "one conversion per node (its first rank's pairs at MPI_Init and MPI_Finalize)"},
          {"offsets", "CLOCK_MONOTONIC of each node's first rank to rank 0, ping-pong at MPI_Init and MPI_Finalize"},
          {"nodes", list},
          {"max_conversion_uncertainty_ns", worst_pair},
          {"max_offset_uncertainty_ns", worst_offset}};
}

}  // namespace orrery::measure

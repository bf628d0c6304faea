// The collective half of the delay analysis (delay_model.h). Per
// communicator, in id order on every rank (one global order, as in
// replay_collectives.cpp), and per chunk of instances:
//   1. one Allreduce(MAX) of the latest enter, the root's enter and the
//      latest enter of the non-roots, from which each member knows whether
//      and how long it waited;
//   2. one Allreduce(MAX) naming the delayer (the member that entered last;
//      the root of a broadcast; the last contributor of a reduction) and
//      whether anyone waited;
//   3. the delayer's interval profile (since the previous instance on the
//      communicator) reaches the members by one Allreduce(SUM) in which only
//      the delayer fills its instance's slots; each waiter compares its own
//      interval with it;
//   4. per propagation round, one Allreduce(SUM) of two values per instance
//      (the waiting the delayer's own waiting explains), and at the end one
//      of the costs per entry of the delayer's profile.
// All of it is O(1) per instance and rank plus the delayer's profile, which
// is bounded by its own events in the interval: never O(P).

#include <algorithm>
#include <span>
#include <vector>

#include "delay_collective_instance.h"
#include "delay_model.h"
#include "orrery/analyzer/lower_bound_near.h"
#include "reproducible_sum.h"
#include "vmpi.h"

namespace orrery::analyzer::delay {
namespace {

/// How far back a point-to-point interval looks for a collective with its partner.
constexpr std::size_t kSyncLookBack = 64;

bool analyzed(CollectiveKind kind) {
  return kind == CollectiveKind::kBarrier || kind == CollectiveKind::kAllToAll ||
         kind == CollectiveKind::kOneToAll || kind == CollectiveKind::kAllToOne;
}

}  // namespace


CollectiveDelays::CollectiveDelays(const LocalTrace& trace, const Definitions& definitions,
                                   const Communicators& comms)
    : trace_(trace), definitions_(definitions), comms_(comms) {
  for (const auto& [id, def] : definitions.comms) {
    if (comms.get(id) == MPI_COMM_NULL || comms.size(id) < 2) continue;
    by_comm_.emplace_back(id, std::vector<Instance>{});
    std::vector<uint32_t> sorted = def.members;
    std::sort(sorted.begin(), sorted.end());
    members_.emplace_back(id, std::move(sorted));
  }
  const auto index_of = [&](uint32_t comm) -> std::size_t {  // by_comm_.size() if none
    auto it = std::lower_bound(by_comm_.begin(), by_comm_.end(), comm,
                               [](const auto& entry, uint32_t id) { return entry.first < id; });
    return it != by_comm_.end() && it->first == comm
               ? static_cast<std::size_t>(it - by_comm_.begin())
               : by_comm_.size();
  };
  const auto slot_of = [&](uint32_t comm) -> std::vector<Instance>* {
    const std::size_t c = index_of(comm);
    return c < by_comm_.size() ? &by_comm_[c].second : nullptr;
  };
  const auto replayed = [](const CollectiveOp& op) {
    return op.complete_call != kNone && op.start_call != kNone && op.kind != CollectiveKind::kOther;
  };
  // Exact sizes first (tens of thousands of instances on a long run:
  // growing by doubling would leave up to half of them unused).
  std::vector<std::size_t> counts(by_comm_.size(), 0);
  for (const CollectiveOp& op : trace.collectives) {
    const std::size_t c = replayed(op) ? index_of(op.comm) : by_comm_.size();
    if (c < by_comm_.size()) ++counts[c];
  }
  std::size_t instances = 0;
  for (std::size_t c = 0; c < by_comm_.size(); ++c) {
    by_comm_[c].second.reserve(counts[c]);
    instances += counts[c];
  }
  sync_points_.reserve(instances);
  for (const CollectiveOp& op : trace.collectives) {
    if (!replayed(op)) continue;
    std::vector<Instance>* list = slot_of(op.comm);
    if (list == nullptr) continue;
    Instance instance;
    instance.start = op.start_call;
    instance.call = op.complete_call;
    instance.kind = op.kind;
    instance.root = op.root;
    instance.from = list->empty() ? kNone : trace.events[list->back().call].link;
    // The times, read here where the call's events are at hand (find_waits
    // would miss the cache for them again).
    const uint32_t leave = trace.events[op.complete_call].link;
    instance.enter = trace.events[op.start_call].time;
    instance.exit = trace.events[leave].time;
    sync_points_.push_back(CollectiveSync{leave, op.comm, static_cast<uint32_t>(list->size())});
    list->push_back(std::move(instance));
  }
  // Strictly in order already unless communicators interleave or a call
  // completes several instances: a check, not a sort (which, of equal
  // leaves, may reorder them: those are sorted as they always were).
  const auto by_leave = [](const CollectiveSync& a, const CollectiveSync& b) { return a.leave < b.leave; };
  const auto not_before = [](const CollectiveSync& a, const CollectiveSync& b) { return a.leave >= b.leave; };
  if (std::adjacent_find(sync_points_.begin(), sync_points_.end(), not_before) != sync_points_.end()) {
    std::sort(sync_points_.begin(), sync_points_.end(), by_leave);
  }
}

CollectiveDelays::~CollectiveDelays() = default;

CollectiveSync CollectiveDelays::last_sync_with(uint32_t peer, uint32_t enter) const {
  // Asked in (nearly) increasing order of `enter`, mostly for the same
  // communicator and peer: the search starts where the last one ended, and
  // the last membership answer is remembered.
  const std::size_t at =
      lower_bound_near(sync_points_, sync_points_.size(), enter, sync_hint_,
                       [](const CollectiveSync& s, uint32_t e) { return s.leave < e; });
  auto it = sync_points_.begin() + static_cast<std::ptrdiff_t>(at);
  for (std::size_t steps = 0; it != sync_points_.begin() && steps < kSyncLookBack; ++steps) {
    --it;
    if (it->comm != member_cache_.comm || peer != member_cache_.peer) {
      auto members =
          std::lower_bound(members_.begin(), members_.end(), it->comm,
                           [](const auto& entry, uint32_t id) { return entry.first < id; });
      member_cache_ = MemberCache{it->comm, peer,
                                  members != members_.end() && members->first == it->comm &&
                                      std::binary_search(members->second.begin(),
                                                         members->second.end(), peer)};
    }
    if (member_cache_.member) return *it;
  }
  return CollectiveSync{};
}

bool CollectiveDelays::any_sync_between(uint32_t after, uint32_t enter) const {
  const std::size_t at =
      lower_bound_near(sync_points_, sync_points_.size(), enter, between_hint_,
                       [](const CollectiveSync& s, uint32_t e) { return s.leave < e; });
  return at > 0 && sync_points_[at - 1].leave > after;
}

uint32_t CollectiveDelays::leave_of(uint32_t comm, std::size_t ordinal) const {
  auto it = std::lower_bound(by_comm_.begin(), by_comm_.end(), comm,
                             [](const auto& entry, uint32_t id) { return entry.first < id; });
  if (it == by_comm_.end() || it->first != comm || ordinal >= it->second.size()) return kNone;
  return trace_.events[it->second[ordinal].call].link;
}

void CollectiveDelays::find_waits(std::vector<WaitState>& waits) {
  std::vector<int64_t> slots;
  for (auto& [id, instances] : by_comm_) {
    const MPI_Comm comm = comms_.get(id);
    int size = 0, me = 0;
    vmpi::Comm_size(comm, &size);
    vmpi::Comm_rank(comm, &me);
    // Members that saw different numbers of instances: the common prefix
    // (the collective replay has already failed or counted the rest).
    int64_t counts[2] = {static_cast<int64_t>(instances.size()),
                         -static_cast<int64_t>(instances.size())};
    vmpi::Allreduce(MPI_IN_PLACE, counts, 2, MPI_INT64_T, MPI_MAX, comm);
    instances.resize(static_cast<std::size_t>(-counts[1]));
    for (std::size_t first = 0; first < instances.size(); first += kChunk) {
      const std::size_t m = std::min(kChunk, instances.size() - first);
      slots.assign(3 * m, INT64_MIN);
      for (std::size_t j = 0; j < m; ++j) {
        const Instance& in = instances[first + j];
        const int64_t enter = in.enter;
        const bool has_root = in.root != kNone && in.root < static_cast<uint32_t>(size);
        slots[3 * j] = enter;
        if (has_root && in.root == static_cast<uint32_t>(me)) slots[3 * j + 1] = enter;
        if (has_root && in.root != static_cast<uint32_t>(me)) slots[3 * j + 2] = enter;
      }
      vmpi::Allreduce(MPI_IN_PLACE, slots.data(), static_cast<int>(slots.size()), MPI_INT64_T,
                    MPI_MAX, comm);
      std::vector<int64_t> waiting(m, 0), roles(2 * m, -1);
      for (std::size_t j = 0; j < m; ++j) {
        const Instance& in = instances[first + j];
        if (!analyzed(in.kind)) continue;
        const int64_t enter = in.enter;
        const int64_t exit = in.exit;
        const bool is_root = in.root == static_cast<uint32_t>(me);
        int64_t until = INT64_MIN;
        bool candidate = false;
        if (in.kind == CollectiveKind::kBarrier || in.kind == CollectiveKind::kAllToAll) {
          until = slots[3 * j];
          candidate = enter == slots[3 * j];
        } else if (in.kind == CollectiveKind::kOneToAll) {
          if (!is_root) until = slots[3 * j + 1];
          candidate = is_root;
        } else if (in.root != kNone) {  // n-to-1: the root waits for the last contributor
          if (is_root) until = slots[3 * j + 2];
          candidate = !is_root && enter == slots[3 * j + 2];
        }
        if (until != INT64_MIN) waiting[j] = std::max<int64_t>(0, std::min(until, exit) - enter);
        roles[2 * j] = candidate ? me : -1;
        roles[2 * j + 1] = waiting[j] > 0 ? 1 : 0;
      }
      vmpi::Allreduce(MPI_IN_PLACE, roles.data(), static_cast<int>(roles.size()), MPI_INT64_T,
                    MPI_MAX, comm);
      for (std::size_t j = 0; j < m; ++j) {
        Instance& in = instances[first + j];
        in.delayer = roles[2 * j] == me;
        in.anyone_waited = roles[2 * j + 1] > 0 && roles[2 * j] >= 0;
        if (waiting[j] <= 0 || !in.anyone_waited) continue;
        in.wait = static_cast<uint32_t>(waits.size());
        WaitState wait;
        wait.kind = wait_kind(in.kind);
        wait.callpath_ref = WaitState::callpath_ref_of(trace_.events[in.call]);
        wait.call = in.call;
        wait.waiting = waiting[j];
        wait.delayer = definitions_.world_rank(id, static_cast<uint32_t>(roles[2 * j]), trace_.rank);
        waits.push_back(wait);
      }
    }
  }
}

void CollectiveDelays::compare_intervals(IntervalProfiler& profiler, const CallpathKeys& keys) {
  std::vector<int64_t> lengths, data, own_waiting;
  // The waiters' own profiles of the chunk: (call path, ticks) from
  // mine_begin[j], and their waiting.
  std::vector<std::pair<uint32_t, int64_t>> mine_entries;
  std::vector<std::size_t> mine_begin;
  std::vector<int64_t> mine_waiting;
  IntervalProfile profile;
  TicksByCallpath mine(keys.size());
  passing_.assign(by_comm_.size(), {});
  for (std::size_t c = 0; c < by_comm_.size(); ++c) {
    auto& [id, instances] = by_comm_[c];
    const MPI_Comm comm = comms_.get(id);
    for (std::size_t first = 0; first < instances.size(); first += kChunk) {
      const std::size_t m = std::min(kChunk, instances.size() - first);
      lengths.assign(m, 0);
      own_waiting.assign(m, 0);
      mine_entries.clear();
      mine_begin.assign(m + 1, 0);
      mine_waiting.assign(m, 0);
      // Each member profiles its intervals (the delayer's with its own
      // waits, the waiters' without) before any reduction: the members walk
      // their traces at the same time, not one after the other.
      bool any = false;
      for (std::size_t j = 0; j < m; ++j) {
        Instance& in = instances[first + j];
        any = any || in.anyone_waited;
        const bool delayer = in.delayer && in.anyone_waited;
        if (delayer || in.wait != kNone) {
          // Without the own waits the time and waiting are the same.
          profiler.profile(in.from, in.start, profile, delayer);
        }
        if (delayer) {
          in.profile_begin = static_cast<uint32_t>(profiles_.size());
          profiles_.insert(profiles_.end(), profile.time.begin(), profile.time.end());
          in.own_waits = keep_own_waits(profile.waits);
          for (const auto& wait : profile.waits) in.own_waits_total += wait.second;
          lengths[j] = static_cast<int64_t>(profile.time.size());
          own_waiting[j] = profile.waiting;
        }
        if (in.wait != kNone) {
          mine_entries.insert(mine_entries.end(), profile.time.begin(), profile.time.end());
          mine_waiting[j] = profile.waiting;
        }
        mine_begin[j + 1] = mine_entries.size();
      }
      if (!any) continue;  // every member knows: nobody waited in this chunk
      vmpi::Allreduce(MPI_IN_PLACE, lengths.data(), static_cast<int>(m), MPI_INT64_T, MPI_MAX, comm);
      std::vector<std::size_t> offsets(m + 1, 0);
      for (std::size_t j = 0; j < m; ++j) {
        instances[first + j].entries = static_cast<uint32_t>(lengths[j]);
        offsets[j + 1] = offsets[j] + (instances[first + j].anyone_waited ? 1 + 2 * lengths[j] : 0);
      }
      data.assign(offsets[m], 0);
      for (std::size_t j = 0; j < m; ++j) {
        Instance& in = instances[first + j];
        if (!in.delayer || !in.anyone_waited) continue;
        std::size_t at = offsets[j];
        data[at++] = own_waiting[j];
        for (uint32_t e = 0; e < in.entries; ++e) {
          const auto& [callpath, ticks] = profiles_[in.profile_begin + e];
          data[at++] = static_cast<int64_t>(keys.key(callpath));
          data[at++] = ticks;
        }
      }
      vmpi::Allreduce(MPI_IN_PLACE, data.data(), static_cast<int>(data.size()), MPI_INT64_T, MPI_SUM,
                    comm);
      for (std::size_t j = 0; j < m; ++j) {
        Instance& in = instances[first + j];
        if (in.wait == kNone) continue;
        for (std::size_t k = mine_begin[j]; k < mine_begin[j + 1]; ++k) {
          mine.set(mine_entries[k].first, mine_entries[k].second);
        }
        std::size_t at = offsets[j];
        const int64_t their_waiting = data[at++];
        in.excess_begin = static_cast<uint32_t>(excess_.size());
        for (uint32_t e = 0; e < in.entries; ++e, at += 2) {
          const uint32_t callpath = keys.find(static_cast<uint64_t>(data[at]));
          const int64_t other = callpath == kNone ? 0 : mine.get(callpath);
          if (data[at + 1] > other) {
            excess_.emplace_back(e, static_cast<double>(data[at + 1] - other));
            in.total += static_cast<double>(data[at + 1] - other);
          }
        }
        in.excess_count = static_cast<uint32_t>(excess_.size()) - in.excess_begin;
        mine.clear();
        if (their_waiting > mine_waiting[j]) {
          in.excess_waiting = static_cast<double>(their_waiting - mine_waiting[j]);
          in.total += in.excess_waiting;
        }
      }
      select_passing(instances, first, m, comm, passing_[c]);
    }
  }
}

std::span<const std::pair<uint32_t, int64_t>> CollectiveDelays::keep_own_waits(
    const std::vector<std::pair<uint32_t, int64_t>>& waits) {
  // Blocks of 1 MiB: from the heap's freed memory, not fresh pages, and
  // never copied to grow (a growing vector of millions of waits was both).
  constexpr std::size_t kBlock = std::size_t{1} << 16;
  if (waits.empty()) return {};
  if (own_wait_blocks_.empty() ||
      own_wait_blocks_.back().capacity() - own_wait_blocks_.back().size() < waits.size()) {
    own_wait_blocks_.emplace_back().reserve(std::max(kBlock, waits.size()));
  }
  auto& block = own_wait_blocks_.back();
  const std::size_t begin = block.size();
  block.insert(block.end(), waits.begin(), waits.end());
  return {block.data() + begin, waits.size()};
}

void CollectiveDelays::select_passing(const std::vector<Instance>& instances, std::size_t first,
                                      std::size_t m, MPI_Comm comm,
                                      std::vector<uint32_t>& passing) {
  // An instance passes waiting on if a waiter's delay was partly the
  // delayer's own waiting and the delayer has wait states to pass it to:
  // the others' shares are zero in every round.
  std::vector<uint8_t> flags(m, 0);
  for (std::size_t j = 0; j < m; ++j) {
    const Instance& in = instances[first + j];
    const bool waiter = in.wait != kNone && in.total > 0 && in.excess_waiting > 0;
    const bool delayer = in.delayer && in.own_waits_total > 0;
    flags[j] = static_cast<uint8_t>((waiter ? 1 : 0) | (delayer ? 2 : 0));
  }
  vmpi::Allreduce(MPI_IN_PLACE, flags.data(), static_cast<int>(m), MPI_UINT8_T, MPI_BOR, comm);
  for (std::size_t j = 0; j < m; ++j) {
    if (flags[j] == 3) passing.push_back(static_cast<uint32_t>(first + j));
  }
}

}  // namespace orrery::analyzer::delay

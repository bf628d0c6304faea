// The collective half of the delay analysis, its propagation rounds and
// costs (step 4 of replay_delay_collectives.cpp): one Allreduce(SUM) of
// the shares per chunk of passing instances and round, one of the costs
// per entry of the delayer's profile at the end.

#include <algorithm>
#include <span>
#include <vector>

#include "delay_collective_instance.h"
#include "delay_model.h"
#include "reproducible_sum.h"
#include "vmpi.h"

namespace orrery::analyzer::delay {

void CollectiveDelays::add_shares(const std::vector<double>& shares, std::vector<double>& to) {
  for (const ShareRun& run : share_targets().runs) {
    for (uint32_t e = 0; e < run.count; ++e) {
      const double weight = static_cast<double>(run.waits[e].second) / run.total;
      to[run.waits[e].first] += shares[run.share] * weight;
    }
  }
}

void CollectiveDelays::round_shares(const std::vector<WaitState>& waits,
                                    const std::vector<double>* propagated,
                                    std::vector<double>& shares) {
  // Only the instances that pass waiting on (select_passing: the same list
  // on every member) carry a value; the others' would be zero. What a round
  // reads of them is gathered once, in their order (a round then reads a
  // dense array, not the instances and the wait states they point to).
  if (!round_inputs_built_) build_round_inputs(waits);
  shares.assign(round_inputs_.size(), 0.0);
  double* chunk = shares.data();
  const RoundInput* input = round_inputs_.data();
  for (std::size_t c = 0; c < by_comm_.size(); ++c) {
    const std::size_t passing = passing_[c].size();
    for (std::size_t first = 0; first < passing; first += kChunk) {
      const std::size_t m = std::min(kChunk, passing - first);
      for (std::size_t j = 0; j < m; ++j, ++input) {
        if (input->wait == kNone) continue;
        chunk[j] = propagated != nullptr
                       ? (input->waiting + (*propagated)[input->wait]) * input->fraction
                       : input->waiting * input->fraction;
      }
      sum_over_members(chunk, m, comms_.get(by_comm_[c].first));
      chunk += m;
    }
  }
}

void CollectiveDelays::build_round_inputs(const std::vector<WaitState>& waits) {
  round_inputs_built_ = true;
  std::size_t count = 0;
  for (const std::vector<uint32_t>& passing : passing_) count += passing.size();
  round_inputs_.reserve(count);
  for (std::size_t c = 0; c < by_comm_.size(); ++c) {
    for (const uint32_t i : passing_[c]) {
      const Instance& in = by_comm_[c].second[i];
      if (in.wait == kNone || in.total <= 0) {
        round_inputs_.push_back(RoundInput{});  // no share from this rank
        continue;
      }
      round_inputs_.push_back(RoundInput{in.wait, static_cast<double>(waits[in.wait].waiting),
                                         in.excess_waiting / in.total});
    }
  }
}

const CollectiveShareTargets& CollectiveDelays::share_targets() {
  if (targets_built_) return targets_;
  targets_built_ = true;
  // The delayer's own wait states of each passing instance, in place (no
  // copy: on a trace whose collectives' intervals hold all wait states,
  // millions).
  uint32_t share = 0;
  uint64_t after = 0;  // one past the last wait state so far
  for (std::size_t c = 0; c < by_comm_.size(); ++c) {
    for (const uint32_t i : passing_[c]) {
      const Instance& in = by_comm_[c].second[i];
      if (in.delayer && in.own_waits_total > 0) {
        targets_.runs.push_back(ShareRun{in.own_waits.data(),
                                         static_cast<uint32_t>(in.own_waits.size()), share,
                                         static_cast<double>(in.own_waits_total)});
        for (const auto& own : in.own_waits) {
          targets_.ascending = targets_.ascending && own.first >= after;
          after = uint64_t{own.first} + 1;
        }
      }
      ++share;
    }
  }
  return targets_;
}

void CollectiveDelays::publish_costs(const std::vector<WaitState>& waits,
                                     const std::vector<double>& propagated, const EventBus& bus,
                                     DelayStatistics& statistics) {
  std::vector<double> costs;
  for (auto& [id, instances] : by_comm_) {
    const MPI_Comm comm = comms_.get(id);
    for (std::size_t first = 0; first < instances.size(); first += kChunk) {
      const std::size_t m = std::min(kChunk, instances.size() - first);
      std::vector<std::size_t> offsets(m + 1, 0);
      for (std::size_t j = 0; j < m; ++j) {
        offsets[j + 1] = offsets[j] + 2 * static_cast<std::size_t>(instances[first + j].entries);
      }
      if (offsets[m] == 0) continue;  // the lengths are agreed: all members skip
      costs.assign(offsets[m], 0.0);
      for (std::size_t j = 0; j < m; ++j) {
        const Instance& in = instances[first + j];
        if (in.wait == kNone) continue;
        const WaitState& wait = waits[in.wait];
        if (in.total <= 0) {
          statistics.unexplained += static_cast<double>(wait.waiting);
          continue;
        }
        for (uint32_t x = in.excess_begin; x < in.excess_begin + in.excess_count; ++x) {
          const auto& [entry, excess] = excess_[x];
          const double share = excess / in.total;
          costs[offsets[j] + 2 * entry] += static_cast<double>(wait.waiting) * share;
          costs[offsets[j] + 2 * entry + 1] += propagated[in.wait] * share;
        }
      }
      sum_over_members(costs.data(), costs.size(), comm);
      for (std::size_t j = 0; j < m; ++j) {
        const Instance& in = instances[first + j];
        if (!in.delayer) continue;
        for (uint32_t e = 0; e < in.entries; ++e) {
          const double short_term = costs[offsets[j] + 2 * e];
          const double long_term = costs[offsets[j] + 2 * e + 1];
          if (short_term > 0 || long_term > 0) {
            bus.publish(DelayCostFound{wait_kind(in.kind), profiles_[in.profile_begin + e].first, short_term,
                                       long_term});
          }
        }
      }
    }
  }
}

}  // namespace orrery::analyzer::delay

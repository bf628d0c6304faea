#pragma once
// Internal to the collective half of the delay analysis
// (replay_delay_collectives.cpp: the instances and their comparison;
// delay_collective_rounds.cpp: their propagation rounds and costs).

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>

#include "delay_model.h"

namespace orrery::analyzer::delay {

/// Instances per reduction: each chunk is a synchronization point of all
/// members (on a loaded node a scheduling delay each), so chunks are large;
/// their buffers are O(chunk), not O(P).
inline constexpr std::size_t kChunk = std::size_t{1} << 16;

/// The wait-state kind of a collective operation's waiting.
inline WaitKind wait_kind(CollectiveKind kind) {
  switch (kind) {
    case CollectiveKind::kBarrier: return WaitKind::kBarrier;
    case CollectiveKind::kOneToAll: return WaitKind::kLateBroadcast;
    case CollectiveKind::kAllToOne: return WaitKind::kEarlyReduce;
    default: return WaitKind::kNxN;
  }
}

/// One collective instance on this rank, with what the analysis learned.
/// Its variable parts (the delayer's profile and own waits, the waiter's
/// excess) are ranges of pools of CollectiveDelays: no allocation per instance.
struct CollectiveDelays::Instance {
  uint32_t start = kNone;  ///< Enter index of the starting call
  uint32_t call = kNone;   ///< Enter index of the completing call
  uint32_t from = kNone;   ///< Leave index of the previous instance's completing call
  int64_t enter = 0;       ///< time of the starting call's Enter
  int64_t exit = 0;        ///< time of the completing call's Leave
  CollectiveKind kind = CollectiveKind::kOther;
  uint32_t root = kNone;
  uint32_t wait = kNone;   ///< this rank's wait state, if it waited
  uint32_t entries = 0;    ///< length of the delayer's profile
  bool delayer = false;
  bool anyone_waited = false;
  // The delayer's side: its profile (entries of profiles_ from
  // profile_begin) and its own waits in the interval (in own_wait_blocks_).
  uint32_t profile_begin = 0;
  std::span<const std::pair<uint32_t, int64_t>> own_waits;
  int64_t own_waits_total = 0;
  // The waiter's side: its delay against the delayer's profile entries
  // (excess_count entries of excess_ from excess_begin).
  uint32_t excess_begin = 0, excess_count = 0;
  double excess_waiting = 0;
  double total = 0;
};

}  // namespace orrery::analyzer::delay

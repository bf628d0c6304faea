#pragma once
// One time base per node. Ranks that share a node (MPI_COMM_TYPE_SHARED)
// read the same TSC and the same CLOCK_MONOTONIC, so they share one
// TSC→ns conversion, made of two precise pairs that the node's first rank
// takes at MPI_Init and at MPI_Finalize and broadcasts to the others. With
// one fit per process instead, the fits' own errors (a reading preempted
// between the two clocks, rate rounding) differ by up to microseconds between
// ranks, more than a shared-memory message takes: the analyzer then saw
// receives that ended before their send began (docs/measure.md, "Clocks").
// Offsets between nodes stay ping-pong based, measured by the node leaders
// only and shared with their node.

#include <mpi.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "clock.h"
#include "trace_writer.h"

namespace orrery::measure {

/// This rank's view of its node's time base.
class NodeClock {
 public:
  /// Collective over `world`: finds the node, takes (leader) and shares the
  /// first pair, measures the node's offset to rank 0. Never throws.
  void start(MPI_Comm world) noexcept;
  /// Collective over `world`: the last pair and the second offset.
  void stop() noexcept;
  /// Frees the node communicator.
  void release() noexcept;

  /// The node's conversion (after stop; before, only the first pair is known
  /// and `last` is this rank's own reading, for the emergency path).
  [[nodiscard]] TimeConverter converter() const noexcept;
  /// The first pair (the profile's reference for tick rates).
  [[nodiscard]] ClockPair first() const noexcept { return first_.pair; }
  /// Offsets to rank 0 measured so far (the node leader's, shared).
  [[nodiscard]] const std::vector<ClockOffset>& offsets() const noexcept { return offsets_; }

  /// This rank's entry for measurement.json: the node leader; for leaders,
  /// the node's conversion, offsets and their uncertainties.
  [[nodiscard]] nlohmann::json describe(const std::string& host) const;
  /// Rank 0: the experiment's "clock" object from every rank's describe().
  [[nodiscard]] static nlohmann::json summarize(const std::vector<nlohmann::json>& per_rank);

 private:
  [[nodiscard]] PreciseClockPair shared_pair() const noexcept;
  [[nodiscard]] ClockOffset measure_offset() const noexcept;

  MPI_Comm world_ = MPI_COMM_NULL;
  MPI_Comm node_ = MPI_COMM_NULL;
  int world_rank_ = 0;
  int world_size_ = 1;
  int node_rank_ = 0;
  int node_size_ = 1;
  int leader_ = 0;  ///< world rank of the node's first rank
  PreciseClockPair first_;
  PreciseClockPair last_;
  bool stopped_ = false;
  std::vector<ClockOffset> offsets_;
};

}  // namespace orrery::measure

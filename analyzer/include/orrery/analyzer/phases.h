#pragma once
// Collective failure (STYLE "Errors"): a phase that fails on one analysis
// rank fails on all. The error flag is OR-ed across ranks after the phase,
// and every rank throws the same error, naming the first failing rank.

#include <mpi.h>

#include <exception>
#include <functional>
#include <string>

#include "orrery/error.h"

namespace orrery::analyzer {

/// Runs phases on every rank and turns a local failure into a collective one.
class PhaseRunner {
 public:
  explicit PhaseRunner(MPI_Comm world) : world_(world) {}

  /// Runs `phase` locally, then agrees with all ranks whether anyone failed;
  /// if so, throws orrery::Error("rank R: message") on every rank.
  void run(const std::function<void()>& phase) const;

  /// For phases that communicate inside (the replays): an exception there
  /// cannot be agreed on, so the job is aborted with a message instead of
  /// leaving the other ranks waiting.
  void run_or_abort(const char* name, const std::function<void()>& phase) const;

 private:
  MPI_Comm world_;
};

}  // namespace orrery::analyzer

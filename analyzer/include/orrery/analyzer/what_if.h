#pragma once
// What-if replay: the trace re-timed on a modelled machine (docs/design.md §6,
// `--what-if MODEL`). Every computation burst (time between MPI calls) is
// kept, scaled by `compute`; every MPI operation is re-timed on the model,
// in each rank's event order, with one replay message per traced message
// (between the partners only) and one reduction per collective instance
// over its communicator (docs/design.md §4):
//   message      L + m/B on one full-duplex link per rank: the sender's out
//                link sends one message at a time (m/B each), the
//                receiver's in link takes them in its completion order;
//   eager        m below the eager limit: the send completes when its data
//                left the out link (m/B after it could start), whether or not
//                the receive was posted;
//   rendezvous   m at or above it: the transfer starts when both the send and
//                the receive are posted (no handshake latency), the send
//                completes when the data left;
//   collectives  T = R·L + V/B with R rounds and V bytes through the busiest
//                link (collective_cost): ⌈log2 P⌉ rounds of the whole buffer
//                for barriers, broadcasts, reductions and scans; P−1 rounds of
//                one block (buffer/P) for gathers, scatters, all-to-all,
//                reduce-scatter and neighbourhood collectives. Who waits for
//                whom follows the operation: all-to-all kinds end T after the
//                last member entered; a broadcast's non-roots T after the
//                root entered (the root after its V/B); a reduction's root T
//                after the last member entered (the others after sending
//                their own buffer); a scan T after the last lower rank;
//   init, finalize, communicator management: end when the last member
//                entered plus the part of the call this rank spent after
//                the last member arrived in the traced run (unchanged).
// MPI calls without communication keep their traced duration. Wildcard
// receives take the sender MPI matched in the trace (MessageMatching).

#include <mpi.h>

#include <cstdint>
#include <limits>
#include <string>

#include "orrery/analyzer/communicators.h"
#include "orrery/analyzer/message_exchange.h"
#include "orrery/trace/trace.h"

namespace orrery::analyzer {

/// A modelled machine.
struct MachineModel {
  std::string text = "ideal";  ///< as the user wrote it (the report's `what_if`)
  double latency = 0;          ///< seconds per message (L)
  double bandwidth = std::numeric_limits<double>::infinity();  ///< bytes per second (B)
  double compute = 1;          ///< factor on every computation burst (F)
  uint64_t eager_limit = 64 * 1024;  ///< bytes: messages below it are sent eagerly
};

/// Parses `ideal` or `latency=L,bandwidth=B[,compute=F]` (L in ns/us/ms/s, B in
/// B/s, KB/s, MB/s, GB/s, TB/s, powers of 1000; F a plain positive number).
/// Throws UsageError naming what is wrong.
[[nodiscard]] MachineModel parse_machine_model(const std::string& text);

/// Rounds and bytes of one collective instance on the model.
struct CollectiveCost {
  double rounds = 0;  ///< each costs L
  double bytes = 0;   ///< through the busiest link, each costs 1/B
};

/// The documented collective model (above): `region` is the MPI function's
/// name (it tells a gather from a reduction), `group` the communicator's
/// size, `buffer` the largest of the members' bytes sent or received.
[[nodiscard]] CollectiveCost collective_cost(CollectiveKind kind, const std::string& region,
                                             uint32_t group, double buffer);

/// What one re-timing found (per rank; run times agreed over all ranks).
struct WhatIfTiming {
  double measured_runtime = 0;   ///< seconds: latest end − earliest start, as traced
  double predicted_runtime = 0;  ///< seconds: the same on the model
  double predicted_end = 0;      ///< seconds: this rank's end − the earliest start, on the model
  /// Nothing waited on the model: one walk and one bulk exchange re-timed
  /// the trace (see replay_what_if), not one message per message.
  bool without_waits = false;
  /// That walk was tried but something waited: the replay went event by event.
  bool without_waits_tried = false;
};

/// Collective over `world`: throws InputError on every rank if the members of
/// a communicator saw different numbers of collective instances (a truncated
/// or inconsistent trace: the what-if replay would wait forever). Call it
/// before replay_what_if, outside any abort-on-failure phase.
void check_collective_counts(const LocalTrace& trace, const Definitions& definitions,
                             const Communicators& comms, MPI_Comm world);

/// What the what-if replay reads (and re-times): this rank's trace with its
/// call tree (handed over by build_call_tree), the definitions, the
/// communicators, the message matching and the analysis' world.
struct ReplayInputs {
  LocalTrace& trace;
  const CallTree& tree;
  const Definitions& definitions;
  const Communicators& comms;
  const MessageMatching& matching;
  MPI_Comm world;
};

/// Collective over `in.world` (one rank per traced rank). Re-times this
/// rank's trace on `model`; with `apply`, writes the new times into `trace` (and
/// scales the folded computation by model.compute), otherwise leaves it
/// untouched (the ideal-network run of the POP efficiencies). Throws
/// InputError if the replay stalls (the model deadlocks the program).
/// Without `apply`, on the ideal network without an eager limit (no
/// rendezvous, no costs), it first walks as if nothing waited, with one bulk
/// exchange after (what_if_rounds.cpp): the same times, exactly, if then
/// nothing would have waited; otherwise the walk event by event.
WhatIfTiming replay_what_if(const ReplayInputs& in, const MachineModel& model, bool apply);

}  // namespace orrery::analyzer

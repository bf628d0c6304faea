#pragma once
// Incomplete experiments: a run that never reached MPI_Finalize leaves no
// unified EXP/traces.otf2, only one archive per rank,
// EXP/incomplete/rank-<r>/traces.otf2, whose definitions are that rank's
// own (docs/measure.md). Each analysis rank reads its rank's archive; the
// definitions are unified across the analysis ranks here:
//   regions         by (name, file, line, paradigm, role)
//   self comms      all one communicator (is_self), as in a unified trace
//   other comms     by (member list as world ranks, occurrence): the n-th of
//                   a rank's communicators with a given member list (in its
//                   local id order, which is creation order) is the n-th on
//                   every member. MPI creates communicators collectively, so
//                   all members create those with identical members (dups)
//                   in the same order; a rank that ended earlier simply
//                   knows a prefix of them.
// Unified ids are given in order of first appearance, walking the ranks in
// world rank order and each rank's definitions in local id order, so every
// rank computes the same Definitions.

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "orrery/trace/trace.h"
#include "orrery/trace/trace_reader.h"

namespace orrery::analyzer {

/// Whether `experiment` is an incomplete experiment: no EXP/traces.otf2 but
/// an EXP/incomplete directory.
[[nodiscard]] bool is_incomplete_experiment(const std::string& experiment);

/// EXP/incomplete/rank-<r> (an archive directory anchor_path accepts).
[[nodiscard]] std::string incomplete_archive(const std::string& experiment, uint32_t rank);

/// Whether rank `rank` of an incomplete experiment left a readable archive
/// (its anchor and non-empty definitions; a rank killed while writing leaves
/// an anchor and an empty traces.def, which counts as no trace).
[[nodiscard]] bool left_a_trace(const std::string& experiment, uint32_t rank);

/// The world size of an incomplete experiment, from the archive of the
/// lowest rank that has one; throws InputError if there is none.
[[nodiscard]] uint32_t incomplete_world_size(const std::string& experiment);

/// Throws InputError naming the first rank below `ranks` without an archive.
void check_incomplete_archives(const std::string& experiment, uint32_t ranks);

/// The ranks below `ranks` that left no archive: killed by a signal the
/// measurement cannot catch (SIGKILL: the out-of-memory killer, a node
/// failure). The analysis runs without them (their analysis ranks replay an
/// empty trace) and their values in the report are NaN, absent.
[[nodiscard]] std::vector<uint32_t> ranks_without_trace(const std::string& experiment,
                                                        uint32_t ranks);

/// How rank `rank` ended, from EXP/incomplete/rank-<r>.json ("reason", and
/// the signal if any); for a rank without archive "killed by SIGNAL, no
/// trace" with the signal `orrery run` recorded in run.json ("no trace" if
/// none); "unknown" if the file is unreadable.
[[nodiscard]] std::string incomplete_reason(const std::string& experiment, uint32_t rank);

/// Unifies per-rank definitions (index = world rank): returns the unified
/// definitions and, per rank, the mapping of its local ids. `ranks` of the
/// result has one entry per input, entry r taken from input r's own rank.
[[nodiscard]] Definitions unify_definitions(const std::vector<Definitions>& local,
                                            std::vector<IdMapping>& mappings);

/// Collective over `world` (rank r holding the definitions of traced rank
/// r): every rank returns the same unified definitions and `mapping` gets
/// this rank's local → unified ids.
[[nodiscard]] Definitions unify_definitions(const Definitions& local, MPI_Comm world,
                                            IdMapping& mapping);

/// Byte serialization of definitions as unify_definitions exchanges them
/// (regions, communicators with their local ids, this rank's RankDef).
[[nodiscard]] std::vector<char> serialize_definitions(const Definitions& local, uint32_t rank);
[[nodiscard]] Definitions deserialize_definitions(const char* data, std::size_t size,
                                                  uint32_t rank);

}  // namespace orrery::analyzer

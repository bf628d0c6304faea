#pragma once
// Definition unification at MPI_Finalize, by a binomial reduction tree over
// the ranks (ceil(log2 P) rounds): each rank merges its children's blocks of
// definitions into its own (deduplicated, unify_set.h) and passes the union to
// its parent; rank 0's union is the global definitions. Each block's ids ->
// global ids come back down the same tree, so a rank receives the unions of
// its children's blocks and the ids of its own block, never all ranks' data
// (except rank 0, which writes the global definitions).

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "definitions.h"

namespace orrery::measure {

/// The unified definitions (complete on rank 0 only).
struct GlobalDefinitions {
  std::vector<RegionDef> regions;
  std::vector<CommDef> comms;  ///< parent is a global id
  std::vector<std::string> hosts;  ///< per world rank
};

/// This rank's local -> global id maps.
struct IdMapping {
  std::vector<uint32_t> regions;
  std::vector<uint32_t> comms;
};

/// What one rank spent in unify(): the bytes MPI delivered into its buffers,
/// the messages (or collective results) that carried them, its CPU time.
struct UnificationCost {
  uint64_t bytes_received = 0;
  uint64_t messages = 0;
  double cpu_seconds = 0;
  /// Rank 0: the encoded size of the global definitions, the least it could
  /// receive (less its own definitions) however the unification were done.
  uint64_t global_definitions_bytes = 0;
};

/// Collective over `comm` (all ranks must call it). Returns false on every
/// rank if any rank failed. `cost`, if given, receives this rank's cost.
bool unify(MPI_Comm comm, const LocalDefinitions& local, const std::string& host,
           GlobalDefinitions& global, IdMapping& mapping, UnificationCost* cost = nullptr) noexcept;

/// Rank 0 gets every rank's blob (in rank order); collective over `comm`.
std::vector<std::vector<uint8_t>> gather_blobs(MPI_Comm comm, const std::vector<uint8_t>& blob);

}  // namespace orrery::measure

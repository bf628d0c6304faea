#pragma once
// Definition unification at MPI_Finalize: every rank sends its local
// definitions to rank 0, which assigns global ids and sends each rank its
// local -> global mapping.

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
};

/// Collective over `comm` (all ranks must call it). Returns false on every
/// rank if any rank failed. `cost`, if given, receives this rank's cost.
bool unify(MPI_Comm comm, const LocalDefinitions& local, const std::string& host,
           GlobalDefinitions& global, IdMapping& mapping, UnificationCost* cost = nullptr) noexcept;

/// Rank 0 gets every rank's blob (in rank order); collective over `comm`.
std::vector<std::vector<uint8_t>> gather_blobs(MPI_Comm comm, const std::vector<uint8_t>& blob);

}  // namespace orrery::measure

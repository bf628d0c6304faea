#pragma once
// The analysis re-creates every communicator of the trace (from its Comm and
// Group definitions) so that replayed messages and collectives use the same
// groups, ranks and matching rules as the traced ones.

#include <mpi.h>

#include <cstdint>
#include <unordered_map>

#include "orrery/trace/trace.h"

namespace orrery::analyzer {

/// MPI communicators mirroring the trace's, for the communicators this rank is in.
class Communicators {
 public:
  /// Collective over `world`: every rank walks the definitions in the same order.
  Communicators(const Definitions& definitions, uint32_t self, MPI_Comm world);
  ~Communicators();
  Communicators(const Communicators&) = delete;
  Communicators& operator=(const Communicators&) = delete;

  /// The analysis communicator for trace comm `id`; MPI_COMM_NULL if this
  /// rank is not in it or it is not defined.
  [[nodiscard]] MPI_Comm get(uint32_t id) const;
  [[nodiscard]] int size(uint32_t id) const;

 private:
  std::unordered_map<uint32_t, MPI_Comm> comms_;
};

}  // namespace orrery::analyzer

#include "orrery/analyzer/phases.h"

#include <cstdio>
#include <vector>
#include "vmpi.h"

namespace orrery::analyzer {

void PhaseRunner::run(const std::function<void()>& phase) const {
  std::string message;
  int status = kExitOk;
  try {
    phase();
  } catch (const Error& error) {
    message = error.what();
    status = error.exit_status();
  } catch (const std::exception& error) {
    message = error.what();
    status = kExitBadInput;
  }
  int rank = 0, size = 0;
  vmpi::Comm_rank(world_, &rank);
  vmpi::Comm_size(world_, &size);
  const int mine = status == kExitOk ? size : rank;
  int first = size;
  vmpi::Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, world_);
  if (first == size) return;
  // The first failing rank tells everyone what went wrong.
  int header[2] = {static_cast<int>(message.size()), status};
  vmpi::Bcast(header, 2, MPI_INT, first, world_);
  message.resize(static_cast<std::size_t>(header[0]));
  vmpi::Bcast(message.data(), header[0], MPI_CHAR, first, world_);
  // Messages of input errors already name what is wrong; say which rank saw it
  // only when it is not obvious from the text.
  const std::string prefix = message.find("rank ") == std::string::npos
                                 ? "rank " + std::to_string(first) + ": "
                                 : std::string();
  throw Error(prefix + message, header[1] == kExitOk ? kExitBadInput : header[1]);
}

void PhaseRunner::run_or_abort(const char* name, const std::function<void()>& phase) const {
  try {
    phase();
  } catch (const std::exception& error) {
    int rank = 0;
    vmpi::Comm_rank(world_, &rank);
    std::fprintf(stderr, "orrery-analyze: rank %d failed during %s: %s\n", rank, name,
                 error.what());
    std::fflush(stderr);
    vmpi::Abort(world_, kExitBadInput);
  }
}

}  // namespace orrery::analyzer

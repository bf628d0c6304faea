#pragma once
// Running the launch line as a child process with the measurement's
// environment, forwarding SIGINT/SIGTERM to it while the launcher waits.

#include <string>
#include <utility>
#include <vector>

namespace orrery::measure {

/// How the child ended.
struct ChildExit {
  bool started = false;  ///< false: exec failed (error says why)
  int exit_status = 0;   ///< the status to pass through (128+signal when killed)
  int signal = 0;        ///< the signal that killed the child, or 0
  int interrupted_by = 0;  ///< SIGINT/SIGTERM the launcher received (and forwarded), or 0
  std::string error;
};

/// Environment overrides: (name, value) pairs; LD_PRELOAD is appended to an
/// existing value instead of replacing it.
using EnvironmentOverrides = std::vector<std::pair<std::string, std::string>>;

/// Forks, execs `argv` (searched in PATH) with the environment, waits for it.
ChildExit run_child(const std::vector<std::string>& argv, const EnvironmentOverrides& overrides);

}  // namespace orrery::measure

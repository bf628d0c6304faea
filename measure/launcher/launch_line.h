#pragma once
// Understanding the launch line: which MPI launcher it uses, which program it
// starts with how many ranks, and how to make the launcher forward variables.

#include <optional>
#include <string>
#include <vector>

namespace orrery::measure {

/// What the launch line after `--` says about the run.
struct LaunchLine {
  bool mpi_launcher = false;  ///< starts with mpirun/mpiexec/orterun/srun/...
  bool openmpi = false;       ///< the launcher is OpenMPI's (needs -x VAR to forward)
  std::string program;        ///< the application as written (may be empty)
  std::optional<int> ranks;   ///< -np/-n value, 1 for a program started directly
};

/// Finds the launcher, the application and the rank count in `launch`.
LaunchLine analyze_launch_line(const std::vector<std::string>& launch);

/// `orrery_<program>_<ranks>` ("x" when the rank count is not given).
std::string default_experiment_name(const LaunchLine& line);

/// The launch line with `-x NAME` inserted after an OpenMPI launcher for each
/// variable name, so that ranks on other nodes receive them; unchanged otherwise.
std::vector<std::string> with_forwarded_variables(const std::vector<std::string>& launch,
                                                  const LaunchLine& line,
                                                  const std::vector<std::string>& names);

/// The full path of `command` as execvp would find it, or empty.
std::string find_in_path(const std::string& command);

}  // namespace orrery::measure

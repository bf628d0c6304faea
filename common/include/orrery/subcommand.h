#pragma once
// One subcommand of the `orrery` front end. Each part lists its own
// (docs/design.md §6: `run` with measure/, `view` with viewer/, the cube tools with
// report/); the front end only concatenates the lists and dispatches.

#include <vector>

namespace orrery {

struct Subcommand {
  const char* name;     ///< `orrery <name>`
  const char* summary;  ///< one line for `orrery --help`
  /// argv[0] is "orrery <name>"; returns the exit status (0 ok, 1 bad input, 2 bad usage).
  int (*main)(int argc, char** argv);
};

using Subcommands = std::vector<Subcommand>;

}  // namespace orrery

// The launcher's entry in `orrery --help` (orrery/launcher/commands.h).

#include "orrery/launcher/commands.h"

namespace orrery::measure {

Subcommands launcher_subcommands() {
  return {{"run", "run an MPI program with measurement: orrery run [-o EXP] -- mpirun ...",
           run_command}};
}

}  // namespace orrery::measure

#pragma once
// The launcher's subcommand: `orrery run`.

#include "orrery/subcommand.h"

namespace orrery::measure {

int run_command(int argc, char** argv);

/// `run`.
Subcommands launcher_subcommands();

}  // namespace orrery::measure

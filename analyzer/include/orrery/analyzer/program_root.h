#pragma once
// One root per process: Scalasca-style call trees have the program at the top.
// A trace whose events are not all enclosed by one top-level region gets a
// synthetic root region around them, so that the time between recorded
// regions (the program computing) lands in a call path too.

#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "orrery/trace/trace.h"
#include "orrery/launch_command.h"

namespace orrery::analyzer {

/// The program's name for the root region: the basename of the executable in
/// `EXP/run.json` (`measurement.program`, else the launched command), else "program".
[[nodiscard]] std::string program_name(const std::string& experiment);

/// The program name from a recorded command line (shared with the report tools).
using ::orrery::program_from_command;

/// The root region's name, the same on every rank of `world`: the
/// program_name() of run.json if it has one, else the program name of rank
/// 0's OTF2 ProgramBegin event (other producers' traces), else "program".
[[nodiscard]] std::string agreed_program_name(const std::string& experiment,
                                              const LocalTrace& trace, MPI_Comm world);

/// Appends the synthetic root region (paradigm measurement, role artificial)
/// to the definitions and returns its id; same id and name on every rank.
uint32_t add_root_region(Definitions& definitions, const std::string& name);

/// True if the trace needs a synthetic root: its events are not all enclosed
/// by a single top-level region instance.
[[nodiscard]] bool needs_root(const LocalTrace& trace);

/// Encloses all events of `trace` in an instance of `root_region` from its
/// first to its last timestamp (when `needs_root`); the existing top-level
/// regions become its children and the root is call path 0. Returns true if
/// a root was added.
bool enclose_in_root(LocalTrace& trace, uint32_t root_region);

}  // namespace orrery::analyzer

#pragma once
// The viewer's subcommands: `orrery view`, and the trace side of
// `orrery export` (Perfetto), which reads the trace as the timeline does.

#include "orrery/subcommand.h"

namespace orrery::viewer {

int view_command(int argc, char** argv);
/// `orrery export EXP --format perfetto`: the trace as Chrome trace-event JSON.
int perfetto_export_command(int argc, char** argv);

/// `view`.
Subcommands viewer_subcommands();

}  // namespace orrery::viewer

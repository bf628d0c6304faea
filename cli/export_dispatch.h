#pragma once
// `orrery export` reads a report for most formats and a trace for perfetto;
// the two live in different parts (report/tools, viewer/).

namespace orrery::cli {

/// The trace formats (perfetto) go to the viewer's trace reading, every
/// other format to the report tools.
int export_dispatch(int argc, char** argv);

}  // namespace orrery::cli

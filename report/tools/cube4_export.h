#pragma once
// `orrery export REPORT --format cube -o OUT.cubex`: the report as a CUBE4
// archive that CubeGUI and CubeLib open (docs/report.md, "CUBE4 export").

#include <string>

#include "orrery/report/hdf5_io.h"

namespace orrery::report::tools {

/// Writes `output` (a tar: anchor.xml plus <id>.index and <id>.data per metric).
void export_cube4(const CubeReader& reader, const std::string& output);

}  // namespace orrery::report::tools

#pragma once
// The source pane: the lines of a call path's region when the report names
// its file and line (compiler-instrumented regions with debug information)
// and the file is readable where the viewer runs.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "orrery/report/cube.h"

namespace orrery::viewer {

/// {available: true, file, path, line, first, lines: [text…]} with the lines
/// from a few before `region.line` to `after` lines after it, or
/// {available: false, reason} (no file or line recorded, an MPI call, a file
/// that cannot be read). A relative file name is looked for in each of
/// `directories` (e.g. the experiment's, where the program was built and run).
nlohmann::json source_lines(const report::Region& region, const std::vector<std::string>& directories,
                            int before = 4, int after = 40);

}  // namespace orrery::viewer

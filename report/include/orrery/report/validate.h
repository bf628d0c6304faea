#pragma once
// Structural checks of a cube header (docs/design.md §5): the reader runs them on
// every file it opens, the writer on every header it is given.

#include <string>

#include "orrery/report/cube.h"

namespace orrery::report {

/// The first structural problem of a header ("metric 3 has parent 7, ..."), or "" if none.
[[nodiscard]] std::string header_problem(const CubeHeader& header);

}  // namespace orrery::report

#pragma once
// Synthetic cubes for the viewer's tests and benchmark: a metric tree like
// docs/design.md §4's (time > execution > mpi > ... and visits), a call tree of MPI
// programs, and values from a seeded generator with a known imbalance.

#include <cstddef>
#include <cstdint>
#include <string>

#include "orrery/report/cube.h"

namespace orrery::viewer::testing {

/// The shape and content of a synthetic cube.
struct FixtureSpec {
  std::size_t callpaths = 24;
  std::size_t locations = 4;
  uint32_t seed = 1;
  double scale = 1.0;  ///< multiplies every time value (a "slower run")
};

/// Builds the cube in memory (values exclusive in both trees).
[[nodiscard]] report::Cube make_fixture_cube(const FixtureSpec& spec);

/// Removes the metric called `name` (its values too); its sub-metrics move up
/// to its parent. Throws UsageError if there is no such metric.
void drop_metric(report::Cube& cube, const std::string& name);

}  // namespace orrery::viewer::testing

#pragma once
// Builds cubes for tests from nested lists, e.g.
//   literal_cube({.metrics = {{"time", ""}, {"mpi", "time"}},
//                 .callpaths = {"main", "main/MPI_Send"},
//                 .ranks = {0, 1},
//                 .values = {{"time", {{1, 2}, {0.5, 0.5}}}}});
// Call paths are region-name chains in pre-order; metrics missing from
// `values` are all zero.

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "orrery/report/cube.h"

namespace orrery::report::testing {

/// A cube written as nested lists; literal_cube() turns it into a Cube.
struct LiteralCube {
  std::vector<std::pair<std::string, std::string>> metrics{};  ///< name, parent name ("" = root)
  std::vector<std::string> callpaths{};                      ///< "main/solve/MPI_Recv"
  std::vector<int> ranks{};                                  ///< one location per rank
  std::map<std::string, std::vector<std::vector<double>>> values{};  ///< [callpath][rank]
};

/// The cube `literal` describes (regions named after the path elements, one thread per rank).
Cube literal_cube(const LiteralCube& literal);

/// The value of `metric` at the call path named by its chain and the location of `rank`.
double value_at(const Cube& cube, const std::string& metric, const std::string& chain, int rank);

/// The chain of region names ("main/solve") of each call path row.
std::vector<std::string> chains(const Cube& cube);

}  // namespace orrery::report::testing

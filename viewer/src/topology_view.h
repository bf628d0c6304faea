#pragma once
// The topology view: the Cartesian process grid a program created
// (MPI_Cart_create, recorded by the measurement in EXP/topology/rank-<r>.json,
// docs/measure.md), for colouring the grid by any metric.

#include <string>

#include <nlohmann/json.hpp>

namespace orrery::viewer {

/// {available: true, comm, dims, periods, ranks: [[world rank, coord0, coord1, …]]}
/// for the Cartesian communicator of `experiment` with the most ranks, or
/// {available: false, reason} when the program created none (or its records
/// cannot be read).
nlohmann::json read_cartesian_topology(const std::string& experiment);

}  // namespace orrery::viewer

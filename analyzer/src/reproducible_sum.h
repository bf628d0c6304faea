#pragma once
// Sums of floating-point values over a communicator that do not depend on
// the order MPI combines the members' values in. MPI_SUM on doubles rounds
// after each addition, in an order that depends on the algorithm and the
// number of processes; the replays of one process per traced rank and of
// blocks of traced ranks (vmpi.h) must give the same bits.

#include <mpi.h>

#include <cstddef>

namespace orrery::analyzer {

/// Replaces values[0..n) by their sums over the members of `comm`. Each value
/// travels as its integer part and its fraction in units of 2^-40, summed as
/// integers (exact, so in any order); the sum is rebuilt from the two integer
/// sums. Values must be finite and below 2^62 in magnitude (ticks are).
void sum_over_members(double* values, std::size_t n, MPI_Comm comm);

}  // namespace orrery::analyzer

#pragma once
// Neighbourhood collectives (MPI_Neighbor_*, MPI_Ineighbor_*): OTF2 records
// them as Allgather(v) / Alltoall(v/w) over the whole communicator, but a
// rank only waits for its in-neighbours of the communicator's topology.
// The reader marks their instances kNeighbor (by region name), and each
// analysis rank reads its in-neighbours per topology communicator from
// EXP/topology/rank-<r>.json, which Orrery's measurement writes at
// MPI_Cart_create / MPI_Graph_create / MPI_Dist_graph_create* (docs/measure.md).

#include <cstdint>
#include <string>

#include "orrery/trace/trace.h"
#include "orrery/trace/trace_builder.h"
#include "orrery/trace/trace_reader.h"

namespace orrery::analyzer {

/// Whether a region is a neighbourhood collective (MPI_Neighbor_*, MPI_Ineighbor_*).
[[nodiscard]] bool is_neighbor_collective(const RegionDef& region);

/// Tells `builder` which regions start neighbourhood collectives.
void mark_neighbor_collectives(const Definitions& definitions, TraceBuilder& builder);

/// Fills definitions.in_neighbors for traced rank `rank` from the
/// experiment's topology file, if there is one; ids written as local
/// (an incomplete run) are translated through `mapping`. A malformed file
/// is an input error.
void read_in_neighbors(const std::string& experiment, uint32_t rank, const IdMapping* mapping,
                       Definitions& definitions);

}  // namespace orrery::analyzer

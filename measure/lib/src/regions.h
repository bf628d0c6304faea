#pragma once
// Compiler (-finstrument-functions) and user regions: name lookup, filtering,
// and source locations resolved from debug information at finalize.

#include <string>

#include "filter.h"

namespace orrery::measure {

/// The filter applied to compiler and user regions (loaded at MPI_Init).
extern Filter g_region_filter;

/// Fills in file and line of compiler regions from debug information (libdw).
void resolve_source_locations() noexcept;
/// Forgets the user region names (at MPI_Finalize).
void reset_user_regions() noexcept;
/// Forgets the per-process caches (at MPI_Finalize).
void reset_region_caches() noexcept;

}  // namespace orrery::measure

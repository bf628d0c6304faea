#pragma once
// Reading an OTF2 archive into the analyzer's model. The implementation is
// the only code on the reading side that includes OTF2; errors are thrown as
// orrery::InputError naming the experiment and what is wrong with it.

#include <cstdint>
#include <string>

#include "orrery/analyzer/trace.h"

namespace orrery::analyzer {

/// Path of the OTF2 anchor file of an experiment directory (or the anchor itself).
[[nodiscard]] std::string anchor_path(const std::string& experiment);

/// Reads the global definitions: regions, communicators, ranks and hosts.
[[nodiscard]] Definitions read_definitions(const std::string& experiment);

/// Names of the regions that stand for OTF2's measurement events: a
/// BufferFlush becomes an instance of the first (time category overhead), a
/// MeasurementOnOff pair one of the second.
inline constexpr const char* kBufferFlushRegion = "TRACE BUFFER FLUSH";
inline constexpr const char* kMeasurementOffRegion = "MEASUREMENT OFF";

/// Appends those two regions to the definitions. While reading they have the
/// ids definitions.regions.size() and +1; if any rank's trace used them
/// (LocalTrace::measurement_regions_used), every rank must add them after
/// reading, before any other region is added.
void add_measurement_regions(Definitions& definitions);

/// Reads the events (and clock offsets) of world rank `rank` into `trace`.
void read_rank_trace(const std::string& experiment, const Definitions& definitions,
                     uint32_t rank, LocalTrace& trace);

}  // namespace orrery::analyzer

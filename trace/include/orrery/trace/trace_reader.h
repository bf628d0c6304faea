#pragma once
// Reading an OTF2 archive into the analyzer's model. The implementation is
// the only code on the reading side that includes OTF2; errors are thrown as
// orrery::InputError naming the experiment and what is wrong with it.

#include <cstdint>
#include <string>
#include <vector>

#include "orrery/trace/trace.h"

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

/// Local → unified ids, for an archive whose definitions are one rank's own
/// (an incomplete experiment, incomplete.h): indexed by the archive's id,
/// kNone where the unified definitions have none.
struct IdMapping {
  std::vector<uint32_t> regions;
  std::vector<uint32_t> comms;
};

/// Reads the events (and clock offsets) of world rank `rank` into `trace`.
/// With `mapping`, every region and communicator id of an event is
/// translated through it while reading (an event naming an id it does not
/// map is an input error).
void read_rank_trace(const std::string& experiment, const Definitions& definitions,
                     uint32_t rank, LocalTrace& trace, const IdMapping* mapping = nullptr);

/// Reads the events of `thread`, another thread of world rank `rank`, into
/// `trace`, put on the reference time line with `clock_offsets` (its
/// process's: the threads of a process share its clock).
void read_thread_trace(const std::string& experiment, const Definitions& definitions,
                       uint32_t rank, const ThreadDef& thread,
                       const std::vector<ClockOffsetPoint>& clock_offsets, LocalTrace& trace);

/// Orrery's OTF2 event decoder alone, into a sink that only counts (the
/// benchmark's floor for reading): the number of events of `location`, or
/// -1 where the decoder would leave the file to libotf2.
[[nodiscard]] int64_t count_location_events(const std::string& experiment, uint64_t location);

}  // namespace orrery::analyzer

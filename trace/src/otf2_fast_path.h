#pragma once
// When and how Orrery's own event decoder (otf2_event_decoder.h) reads a
// location's events in place of libotf2 (otf2_reader.cpp decides, per
// location): the archive qualifies (POSIX files, no compression, a known
// format version, a valid event chunk size), the location's OTF2 mapping
// tables are ones the decoder applies, and ORRERY_TRACE_DECODER is not
// "otf2". If the decoder meets bytes it does not expect, what it built is
// discarded and libotf2 reads the location instead.

#include <otf2/otf2.h>

#include <atomic>
#include <cstdint>
#include <string>

#include "orrery/trace/trace_reader.h"
#include "otf2_event_decoder.h"

namespace orrery::analyzer {

/// What a location's local definitions give the readers: clock offsets
/// (into the trace) and OTF2 mapping tables (for the decoder).
struct LocalDefinitions {
  LocalTrace* trace = nullptr;
  MappedIds ids;
  /// False if a mapping table is one the decoder does not apply (an id too
  /// large for a lookup table, or two tables of one kind).
  bool ids_usable = true;
  unsigned kinds_seen = 0;  ///< bit per OTF2_MappingType
};

/// How often read_events_with_decoder() read a location and how often it
/// fell back to libotf2 (in this process; the tests read them).
struct DecoderCounts {
  std::atomic<uint64_t> decoded{0};
  std::atomic<uint64_t> fell_back{0};
};
DecoderCounts& decoder_counts();

/// Registers the clock offset and mapping table callbacks (user data: a LocalDefinitions).
void set_local_definition_callbacks(OTF2_DefReaderCallbacks* callbacks);

/// Whether ORRERY_TRACE_DECODER asks for libotf2 ("otf2").
[[nodiscard]] bool libotf2_forced();

/// The archive's event chunk size if the decoder may read its events, 0 if not.
[[nodiscard]] uint64_t decoder_chunk_size(OTF2_Reader* reader);

/// Reads `events_file` with the decoder into `trace` (set up for reading:
/// rank, clock offsets, the options), building it as the libotf2 path does.
/// Returns false, with `trace` back as it was, if the decoder fell back.
/// Throws InputError, naming `trace_name` ("the trace of rank 3 in 'exp'"),
/// for a file cut short or a timestamp across a chunk's end (where libotf2
/// would read memory the file did not fill).
bool read_events_with_decoder(const std::string& events_file, uint64_t chunk_size, const LocalDefinitions& local,
                              const Definitions& definitions, const IdMapping* mapping, LocalTrace& trace,
                              const std::string& trace_name);

/// The decoder alone, into a sink that counts (the benchmark's floor):
/// the number of events it decoded, or -1 if it would fall back.
int64_t count_events_with_decoder(const std::string& events_file, uint64_t chunk_size);

}  // namespace orrery::analyzer

#include "otf2_fast_path.h"

#include <cstdlib>
#include <filesystem>
#include <string_view>
#include <utility>
#include <vector>

#include "builder_sink.h"
#include "orrery/trace/init_finalize.h"
#include "orrery/trace/neighbor_collectives.h"
#include "otf2_handle.h"

namespace orrery::analyzer {
namespace {

/// Written ids at or above this make the decoder leave a mapping table to
/// libotf2 (a lookup table that large is not worth it).
constexpr uint64_t kLargestMappedId = uint64_t{1} << 22;

OTF2_CallbackCode on_clock_offset(void* user, OTF2_TimeStamp time, int64_t offset, double) {
  static_cast<LocalDefinitions*>(user)->trace->clock_offsets.push_back(
      ClockOffsetPoint{static_cast<int64_t>(time), offset});
  return OTF2_CALLBACK_SUCCESS;
}

struct TableBeingRead {
  std::vector<uint32_t>* table;
  bool usable = true;
};

void on_mapped_id(uint64_t written, uint64_t global, void* user) {
  auto* being_read = static_cast<TableBeingRead*>(user);
  if (written >= kLargestMappedId) {
    being_read->usable = false;
    return;
  }
  std::vector<uint32_t>& table = *being_read->table;
  while (table.size() <= written) table.push_back(static_cast<uint32_t>(table.size()));
  table[written] = static_cast<uint32_t>(global);  // the event fields are 32 bits wide
}

OTF2_CallbackCode on_mapping_table(void* user, OTF2_MappingType kind, const OTF2_IdMap* map) {
  auto* local = static_cast<LocalDefinitions*>(user);
  std::vector<uint32_t>* table = nullptr;
  if (kind == OTF2_MAPPING_REGION) table = &local->ids.regions;
  if (kind == OTF2_MAPPING_COMM) table = &local->ids.comms;
  if (kind == OTF2_MAPPING_STRING) table = &local->ids.strings;
  if (table == nullptr) return OTF2_CALLBACK_SUCCESS;  // no field the decoder hands on
  const unsigned bit = 1U << kind;
  if ((local->kinds_seen & bit) != 0) local->ids_usable = false;
  local->kinds_seen |= bit;
  TableBeingRead being_read{table};
  if (OTF2_IdMap_Traverse(map, on_mapped_id, &being_read) != OTF2_SUCCESS || !being_read.usable) {
    local->ids_usable = false;
  }
  return OTF2_CALLBACK_SUCCESS;
}

/// What a LocalTrace holds before its events are read (the callers' set-up).
struct ReadSettings {
  explicit ReadSettings(const LocalTrace& trace)
      : rank(trace.rank),
        clock_offsets(trace.clock_offsets),
        keep_folded_spans(trace.keep_folded_spans),
        measurement_regions(trace.measurement_regions),
        flushes_are_regions(trace.flushes_are_regions) {}
  void restore(LocalTrace& trace) const {
    trace = LocalTrace{};
    trace.rank = rank;
    trace.clock_offsets = clock_offsets;
    trace.keep_folded_spans = keep_folded_spans;
    trace.measurement_regions = measurement_regions;
    trace.flushes_are_regions = flushes_are_regions;
  }
  uint32_t rank;
  std::vector<ClockOffsetPoint> clock_offsets;
  bool keep_folded_spans;
  uint32_t measurement_regions;
  bool flushes_are_regions;
};

template <bool kMapped, class Ids>
Decoded build(EventFile& file, const Ids& ids, const Definitions& definitions, const IdMapping* mapping,
              LocalTrace& trace) {
  BuilderSink<kMapped> sink(trace, mapping, definitions);
  prepare_builder(definitions, sink.builder);
  const Decoded decoded = decode_events(file, ids, sink);
  if (decoded == Decoded::kAll) sink.builder.finish();
  return decoded;
}

/// Counts events and folds their values into a sum the compiler cannot drop.
struct CountingSink {
  int64_t events = 0;
  uint64_t sum = 0;
  void note(uint64_t time, uint64_t value) {
    ++events;
    sum += time ^ value;
  }
  void enter(uint64_t t, uint32_t region) { note(t, region); }
  void leave(uint64_t t, uint32_t region) { note(t, region); }
  void send(uint64_t t, uint32_t peer, uint32_t comm, uint32_t tag, uint64_t bytes) { note(t, peer + comm + tag + bytes); }
  void recv(uint64_t t, uint32_t peer, uint32_t comm, uint32_t tag, uint64_t bytes) { note(t, peer + comm + tag + bytes); }
  void isend(uint64_t t, uint32_t peer, uint32_t comm, uint32_t, uint64_t, uint64_t request) { note(t, peer + comm + request); }
  void irecv(uint64_t t, uint32_t peer, uint32_t comm, uint32_t, uint64_t, uint64_t request) { note(t, peer + comm + request); }
  void isend_complete(uint64_t t, uint64_t request) { note(t, request); }
  void irecv_request(uint64_t t, uint64_t request) { note(t, request); }
  void request_cancelled(uint64_t t, uint64_t request) { note(t, request); }
  void collective_begin(uint64_t t) { note(t, 0); }
  void collective_end(uint64_t t, uint8_t op, uint32_t comm, uint32_t root, uint64_t, uint64_t) { note(t, op + comm + root); }
  void nbc_request(uint64_t t, uint64_t request) { note(t, request); }
  void nbc_complete(uint64_t t, uint8_t op, uint32_t comm, uint32_t, uint64_t, uint64_t, uint64_t request) {
    note(t, op + comm + request);
  }
  void program_begin(uint64_t t, uint32_t name) { note(t, name); }
  void program_end(uint64_t t) { note(t, 0); }
  void buffer_flush(uint64_t t, uint64_t stop) { note(t, stop); }
  void measurement(uint64_t t, uint8_t mode) { note(t, mode); }
};

}  // namespace

void prepare_builder(const Definitions& definitions, TraceBuilder& builder) {
  synchronize_init_and_finalize(definitions, builder);
  mark_neighbor_collectives(definitions, builder);
}

DecoderCounts& decoder_counts() {
  static DecoderCounts counts;
  return counts;
}

void set_local_definition_callbacks(OTF2_DefReaderCallbacks* callbacks) {
  OTF2_DefReaderCallbacks_SetClockOffsetCallback(callbacks, on_clock_offset);
  OTF2_DefReaderCallbacks_SetMappingTableCallback(callbacks, on_mapping_table);
}

bool libotf2_forced() {
  const char* choice = std::getenv("ORRERY_TRACE_DECODER");
  return choice != nullptr && std::string_view(choice) == "otf2";
}

uint64_t decoder_chunk_size(OTF2_Reader* reader) {
  OTF2_FileSubstrate substrate = OTF2_SUBSTRATE_UNDEFINED;
  OTF2_Compression compression = OTF2_COMPRESSION_UNDEFINED;
  uint8_t major = 0, minor = 0, bugfix = 0;
  uint64_t events_chunk = 0, definitions_chunk = 0;
  if (OTF2_Reader_GetFileSubstrate(reader, &substrate) != OTF2_SUCCESS || substrate != OTF2_SUBSTRATE_POSIX ||
      OTF2_Reader_GetCompression(reader, &compression) != OTF2_SUCCESS || compression != OTF2_COMPRESSION_NONE ||
      OTF2_Reader_GetVersion(reader, &major, &minor, &bugfix) != OTF2_SUCCESS || major < 1 || major > 3 ||
      OTF2_Reader_GetChunkSize(reader, &events_chunk, &definitions_chunk) != OTF2_SUCCESS ||
      events_chunk < OTF2_CHUNK_SIZE_MIN || events_chunk > OTF2_CHUNK_SIZE_MAX) {
    return 0;
  }
  return events_chunk;
}

bool read_events_with_decoder(const std::string& events_file, uint64_t chunk_size, const LocalDefinitions& local,
                              const Definitions& definitions, const IdMapping* mapping, LocalTrace& trace,
                              const std::string& trace_name) {
  if (!local.ids_usable) {
    ++decoder_counts().fell_back;
    return false;
  }
  const ReadSettings settings(trace);
  EventFile file(events_file, chunk_size);
  Decoded decoded = Decoded::kFallBack;
  if (local.ids.empty()) {
    constexpr WrittenIds kIds;
    decoded = mapping != nullptr ? build<true>(file, kIds, definitions, mapping, trace)
                                 : build<false>(file, kIds, definitions, mapping, trace);
  } else {
    decoded = mapping != nullptr ? build<true>(file, local.ids, definitions, mapping, trace)
                                 : build<false>(file, local.ids, definitions, mapping, trace);
  }
  if (decoded == Decoded::kAll) {
    ++decoder_counts().decoded;
    return true;
  }
  if (decoded == Decoded::kCutShort) {
    throw InputError(trace_name + " is truncated: " + events_file +
                     " ends inside a record or before OTF2's end-of-file mark");
  }
  if (decoded == Decoded::kCorrupt) {
    throw InputError(trace_name + " is corrupt: a timestamp in " + events_file + " crosses the end of its chunk");
  }
  ++decoder_counts().fell_back;
  settings.restore(trace);
  return false;
}

int64_t count_events_with_decoder(const std::string& events_file, uint64_t chunk_size) {
  EventFile file(events_file, chunk_size);
  CountingSink sink;
  if (decode_events(file, WrittenIds{}, sink) != Decoded::kAll) return -1;  // or an error to report
  __asm__ volatile("" : : "g"(sink.sum) : "memory");  // the sum is "used": nothing is dropped
  return sink.events;
}

int64_t count_location_events(const std::string& experiment, uint64_t location) {
  ReaderHandle reader(experiment);
  const uint64_t chunk_size = decoder_chunk_size(reader.get());
  if (chunk_size == 0) return -1;
  const std::filesystem::path dir = std::filesystem::path(anchor_path(experiment)).replace_extension("");
  return count_events_with_decoder((dir / (std::to_string(location) + ".evt")).string(), chunk_size);
}

}  // namespace orrery::analyzer

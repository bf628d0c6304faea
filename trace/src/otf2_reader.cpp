// The OTF2 adapter: with the timeline reader, the only place on the reading
// side that includes OTF2. Every OTF2 error code goes through
// ReaderHandle::check_call() (otf2_handle.h); callbacks never let an
// exception cross OTF2's C frames (they stash it and interrupt the read).

#include <otf2/otf2.h>

#include <algorithm>
#include <cstdarg>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string_view>
#include <unordered_map>

#include "builder_sink.h"
#include "orrery/trace/trace_builder.h"
#include "otf2_fast_path.h"
#include "otf2_handle.h"
#include "orrery/trace/trace_reader.h"
#include "orrery/error.h"

namespace orrery::analyzer {
namespace {

namespace fs = std::filesystem;

Paradigm to_paradigm(OTF2_Paradigm paradigm) {
  switch (paradigm) {
    case OTF2_PARADIGM_MPI: return Paradigm::kMpi;
    case OTF2_PARADIGM_COMPILER: return Paradigm::kCompiler;
    case OTF2_PARADIGM_USER: return Paradigm::kUser;
    case OTF2_PARADIGM_MEASUREMENT_SYSTEM: return Paradigm::kMeasurement;
    case OTF2_PARADIGM_OPENMP: return Paradigm::kOpenmp;
    default: return Paradigm::kOther;
  }
}

RegionRole to_role(OTF2_RegionRole role) {
  switch (role) {
    case OTF2_REGION_ROLE_FUNCTION: case OTF2_REGION_ROLE_WRAPPER: return RegionRole::kFunction;
    case OTF2_REGION_ROLE_POINT2POINT: return RegionRole::kPointToPoint;
    case OTF2_REGION_ROLE_BARRIER: case OTF2_REGION_ROLE_IMPLICIT_BARRIER:
      return RegionRole::kBarrier;
    case OTF2_REGION_ROLE_COLL_ONE2ALL: return RegionRole::kOneToAll;
    case OTF2_REGION_ROLE_COLL_ALL2ONE: return RegionRole::kAllToOne;
    case OTF2_REGION_ROLE_COLL_ALL2ALL: return RegionRole::kAllToAll;
    case OTF2_REGION_ROLE_COLL_OTHER: return RegionRole::kCollectiveOther;
    case OTF2_REGION_ROLE_FILE_IO: case OTF2_REGION_ROLE_FILE_IO_METADATA:
      return RegionRole::kFileIo;
    case OTF2_REGION_ROLE_RMA: return RegionRole::kRma;
    case OTF2_REGION_ROLE_ARTIFICIAL: return RegionRole::kArtificial;
    case OTF2_REGION_ROLE_PARALLEL: return RegionRole::kParallel;
    case OTF2_REGION_ROLE_TASK: return RegionRole::kTask;
    default: return RegionRole::kOther;
  }
}

}  // namespace

CollectiveKind to_kind(OTF2_CollectiveOp op) {
  switch (op) {
    case OTF2_COLLECTIVE_OP_BARRIER: return CollectiveKind::kBarrier;
    case OTF2_COLLECTIVE_OP_BCAST: case OTF2_COLLECTIVE_OP_SCATTER:
    case OTF2_COLLECTIVE_OP_SCATTERV: return CollectiveKind::kOneToAll;
    case OTF2_COLLECTIVE_OP_GATHER: case OTF2_COLLECTIVE_OP_GATHERV:
    case OTF2_COLLECTIVE_OP_REDUCE: return CollectiveKind::kAllToOne;
    case OTF2_COLLECTIVE_OP_ALLGATHER: case OTF2_COLLECTIVE_OP_ALLGATHERV:
    case OTF2_COLLECTIVE_OP_ALLTOALL: case OTF2_COLLECTIVE_OP_ALLTOALLV:
    case OTF2_COLLECTIVE_OP_ALLTOALLW: case OTF2_COLLECTIVE_OP_ALLREDUCE:
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER: case OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK:
      return CollectiveKind::kAllToAll;
    case OTF2_COLLECTIVE_OP_SCAN: return CollectiveKind::kScan;
    case OTF2_COLLECTIVE_OP_EXSCAN: return CollectiveKind::kExscan;
    default: return CollectiveKind::kOther;
  }
}

uint32_t translate_id(const std::vector<uint32_t>& table, uint32_t id, const char* what) {
  const uint32_t mapped = id < table.size() ? table[id] : kNone;
  if (mapped == kNone) {
    throw InputError(std::string("an event refers to ") + what + " " + std::to_string(id) +
                     " that the rank's definitions do not define");
  }
  return mapped;
}

namespace {

/// Everything the global definition callbacks collect before it is resolved.
struct GlobalDefs {
  std::unordered_map<uint32_t, std::string> strings;
  struct Group { OTF2_GroupType type; OTF2_Paradigm paradigm; std::vector<uint64_t> members; };
  std::unordered_map<uint32_t, Group> groups;
  struct Comm { uint32_t name; uint32_t group; };
  std::map<uint32_t, Comm> comms;
  struct RawRegion { uint32_t name, file; uint32_t line; OTF2_Paradigm paradigm; OTF2_RegionRole role; };
  std::map<uint32_t, RawRegion> regions;
  struct Loc { uint32_t name; OTF2_LocationType type; uint64_t group; };
  std::map<uint64_t, Loc> locations;
  struct LocGroup { OTF2_LocationGroupType type; uint32_t parent; };
  std::map<uint64_t, LocGroup> location_groups;
  std::unordered_map<uint32_t, uint32_t> node_names;
  uint64_t resolution = 1000000000;
  uint64_t global_offset = 0;
  uint64_t trace_length = 0;

  std::string string(uint32_t ref) const {
    auto it = strings.find(ref);
    return it == strings.end() ? std::string() : it->second;
  }
};

#define ORRERY_DEF_CB(name, ...) \
  OTF2_CallbackCode name(void* user, __VA_ARGS__)

ORRERY_DEF_CB(on_string, OTF2_StringRef self, const char* text) {
  static_cast<GlobalDefs*>(user)->strings[self] = text ? text : "";
  return OTF2_CALLBACK_SUCCESS;
}
ORRERY_DEF_CB(on_region, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef,
              OTF2_StringRef, OTF2_RegionRole role, OTF2_Paradigm paradigm, OTF2_RegionFlag,
              OTF2_StringRef file, uint32_t line, uint32_t) {
  static_cast<GlobalDefs*>(user)->regions[self] = {name, file, line, paradigm, role};
  return OTF2_CALLBACK_SUCCESS;
}
ORRERY_DEF_CB(on_location, OTF2_LocationRef self, OTF2_StringRef name, OTF2_LocationType type,
              uint64_t, OTF2_LocationGroupRef group) {
  static_cast<GlobalDefs*>(user)->locations[self] = {name, type, group};
  return OTF2_CALLBACK_SUCCESS;
}
ORRERY_DEF_CB(on_location_group, OTF2_LocationGroupRef self, OTF2_StringRef,
              OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef parent, OTF2_LocationGroupRef) {
  static_cast<GlobalDefs*>(user)->location_groups[self] = {type, parent};
  return OTF2_CALLBACK_SUCCESS;
}
ORRERY_DEF_CB(on_node, OTF2_SystemTreeNodeRef self, OTF2_StringRef name, OTF2_StringRef,
              OTF2_SystemTreeNodeRef) {
  static_cast<GlobalDefs*>(user)->node_names[self] = name;
  return OTF2_CALLBACK_SUCCESS;
}
ORRERY_DEF_CB(on_group, OTF2_GroupRef self, OTF2_StringRef, OTF2_GroupType type,
              OTF2_Paradigm paradigm, OTF2_GroupFlag, uint32_t count, const uint64_t* members) {
  static_cast<GlobalDefs*>(user)->groups[self] = {type, paradigm,
                                                  std::vector<uint64_t>(members, members + count)};
  return OTF2_CALLBACK_SUCCESS;
}
ORRERY_DEF_CB(on_comm, OTF2_CommRef self, OTF2_StringRef name, OTF2_GroupRef group, OTF2_CommRef,
              OTF2_CommFlag) {
  static_cast<GlobalDefs*>(user)->comms[self] = {name, group};
  return OTF2_CALLBACK_SUCCESS;
}
ORRERY_DEF_CB(on_clock_properties, uint64_t resolution, uint64_t offset, uint64_t length,
              uint64_t) {
  auto* defs = static_cast<GlobalDefs*>(user);
  defs->resolution = resolution == 0 ? 1000000000 : resolution;
  defs->global_offset = offset;
  defs->trace_length = length;
  return OTF2_CALLBACK_SUCCESS;
}

/// World ranks in order: the MPI COMM_LOCATIONS group if there is one, else
/// the process location groups by id.
std::vector<RankDef> resolve_ranks(const GlobalDefs& raw) {
  std::vector<uint64_t> rank_locations;
  for (const auto& [id, group] : raw.groups) {
    if (group.type == OTF2_GROUP_TYPE_COMM_LOCATIONS && group.paradigm == OTF2_PARADIGM_MPI) {
      rank_locations = group.members;
    }
  }
  if (rank_locations.empty()) {
    for (const auto& [group_id, group] : raw.location_groups) {
      if (group.type != OTF2_LOCATION_GROUP_TYPE_PROCESS) continue;
      for (const auto& [loc_id, loc] : raw.locations) {
        if (loc.group == group_id) {
          rank_locations.push_back(loc_id);
          break;
        }
      }
    }
  }
  std::vector<RankDef> ranks;
  for (uint64_t location : rank_locations) {
    RankDef rank;
    rank.location = location;
    if (auto it = raw.locations.find(location); it != raw.locations.end()) {
      rank.name = raw.string(it->second.name);
      if (auto g = raw.location_groups.find(it->second.group); g != raw.location_groups.end()) {
        if (auto n = raw.node_names.find(g->second.parent); n != raw.node_names.end()) {
          rank.host = raw.string(n->second);
        }
      }
    }
    ranks.push_back(std::move(rank));
  }
  return ranks;
}

/// Each rank's other threads: the other CPU-thread locations of its location
/// group (Orrery numbers them in the id's upper half: thread << 32 | rank).
std::vector<std::vector<ThreadDef>> resolve_threads(const GlobalDefs& raw, const std::vector<RankDef>& ranks) {
  std::vector<std::vector<ThreadDef>> threads(ranks.size());
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    const auto own = raw.locations.find(ranks[r].location);
    if (own == raw.locations.end()) continue;
    for (const auto& [other, loc] : raw.locations) {
      if (other == ranks[r].location || loc.group != own->second.group || loc.type != OTF2_LOCATION_TYPE_CPU_THREAD) {
        continue;
      }
      const auto number = static_cast<uint32_t>(other >> 32 != 0 ? other >> 32 : threads[r].size() + 1);
      threads[r].push_back(ThreadDef{other, number, raw.string(loc.name)});
    }
  }
  return threads;
}

/// libotf2's event callbacks hand each event to a BuilderSink
/// (builder_sink.h, shared with Orrery's decoder); an exception thrown there
/// is kept and the read interrupted.
template <bool kMapped, class F>
OTF2_CallbackCode guarded(void* user, F&& body) {
  auto* sink = static_cast<BuilderSink<kMapped>*>(user);
  try {
    body(*sink);
    return OTF2_CALLBACK_SUCCESS;
  } catch (...) {
    sink->failure = std::current_exception();
    return OTF2_CALLBACK_INTERRUPT;
  }
}

#define ORRERY_EVT_CB(name, ...)                                                          \
  template <bool kMapped>                                                                 \
  OTF2_CallbackCode name(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void* user,     \
                         OTF2_AttributeList*, __VA_ARGS__)
#define ORRERY_SINK(call) return guarded<kMapped>(user, [&](BuilderSink<kMapped>& sink) { sink.call; })

ORRERY_EVT_CB(ev_enter, OTF2_RegionRef region) { ORRERY_SINK(enter(time, region)); }
ORRERY_EVT_CB(ev_leave, OTF2_RegionRef region) { ORRERY_SINK(leave(time, region)); }
ORRERY_EVT_CB(ev_send, uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t bytes) {
  ORRERY_SINK(send(time, peer, comm, tag, bytes));
}
ORRERY_EVT_CB(ev_isend, uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t bytes, uint64_t request) {
  ORRERY_SINK(isend(time, peer, comm, tag, bytes, request));
}
ORRERY_EVT_CB(ev_isend_complete, uint64_t request) { ORRERY_SINK(isend_complete(time, request)); }
ORRERY_EVT_CB(ev_recv, uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t bytes) {
  ORRERY_SINK(recv(time, peer, comm, tag, bytes));
}
ORRERY_EVT_CB(ev_irecv_request, uint64_t request) { ORRERY_SINK(irecv_request(time, request)); }
ORRERY_EVT_CB(ev_irecv, uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t bytes, uint64_t request) {
  ORRERY_SINK(irecv(time, peer, comm, tag, bytes, request));
}
ORRERY_EVT_CB(ev_cancelled, uint64_t request) { ORRERY_SINK(request_cancelled(time, request)); }
template <bool kMapped>
OTF2_CallbackCode ev_coll_begin(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void* user, OTF2_AttributeList*) {
  ORRERY_SINK(collective_begin(time));
}
ORRERY_EVT_CB(ev_coll_end, OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root, uint64_t sent,
              uint64_t received) {
  ORRERY_SINK(collective_end(time, op, comm, root, sent, received));
}
ORRERY_EVT_CB(ev_nbc_request, uint64_t request) { ORRERY_SINK(nbc_request(time, request)); }
ORRERY_EVT_CB(ev_nbc_complete, OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root, uint64_t sent,
              uint64_t received, uint64_t request) {
  ORRERY_SINK(nbc_complete(time, op, comm, root, sent, received, request));
}
ORRERY_EVT_CB(ev_program_begin, OTF2_StringRef name, uint32_t, const OTF2_StringRef*) {
  ORRERY_SINK(program_begin(time, name));
}
ORRERY_EVT_CB(ev_program_end, int64_t) { ORRERY_SINK(program_end(time)); }
ORRERY_EVT_CB(ev_buffer_flush, OTF2_TimeStamp stop) { ORRERY_SINK(buffer_flush(time, stop)); }
ORRERY_EVT_CB(ev_measurement, OTF2_MeasurementMode mode) { ORRERY_SINK(measurement(time, mode)); }

template <bool kMapped>
OTF2_EvtReaderCallbacks* make_event_callbacks() {
  OTF2_EvtReaderCallbacks* cbs = OTF2_EvtReaderCallbacks_New();
  OTF2_EvtReaderCallbacks_SetEnterCallback(cbs, ev_enter<kMapped>);
  OTF2_EvtReaderCallbacks_SetLeaveCallback(cbs, ev_leave<kMapped>);
  OTF2_EvtReaderCallbacks_SetMpiSendCallback(cbs, ev_send<kMapped>);
  OTF2_EvtReaderCallbacks_SetMpiIsendCallback(cbs, ev_isend<kMapped>);
  OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(cbs, ev_isend_complete<kMapped>);
  OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cbs, ev_recv<kMapped>);
  OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(cbs, ev_irecv_request<kMapped>);
  OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(cbs, ev_irecv<kMapped>);
  OTF2_EvtReaderCallbacks_SetMpiRequestCancelledCallback(cbs, ev_cancelled<kMapped>);
  OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(cbs, ev_coll_begin<kMapped>);
  OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(cbs, ev_coll_end<kMapped>);
  OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveRequestCallback(cbs, ev_nbc_request<kMapped>);
  OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveCompleteCallback(cbs, ev_nbc_complete<kMapped>);
  OTF2_EvtReaderCallbacks_SetBufferFlushCallback(cbs, ev_buffer_flush<kMapped>);
  OTF2_EvtReaderCallbacks_SetProgramBeginCallback(cbs, ev_program_begin<kMapped>);
  OTF2_EvtReaderCallbacks_SetProgramEndCallback(cbs, ev_program_end<kMapped>);
  OTF2_EvtReaderCallbacks_SetMeasurementOnOffCallback(cbs, ev_measurement<kMapped>);
  return cbs;
}

/// Reads the selected location's events with libotf2 into `trace`.
template <bool kMapped>
void read_events_with_libotf2(ReaderHandle& reader, uint64_t location, const std::string& what,
                              const std::string& experiment, const Definitions& definitions,
                              const IdMapping* mapping, LocalTrace& trace) {
  reader.check_call(OTF2_Reader_OpenEvtFiles(reader.get()), "opening the event files");
  OTF2_EvtReader* evt_reader = OTF2_Reader_GetEvtReader(reader.get(), location);
  if (evt_reader == nullptr) {
    throw InputError("cannot read the events of " + what);
  }
  // Clock offsets are interpolated by our own correction stage (clock.h);
  // OTF2 would apply them a second time.
  reader.check_call(OTF2_EvtReader_ApplyClockOffsets(evt_reader, false),
                    "configuring the event reader");
  BuilderSink<kMapped> sink(trace, mapping, definitions);
  prepare_builder(definitions, sink.builder);
  OTF2_EvtReaderCallbacks* cbs = make_event_callbacks<kMapped>();
  const OTF2_ErrorCode registered =
      OTF2_Reader_RegisterEvtCallbacks(reader.get(), evt_reader, cbs, &sink);
  OTF2_EvtReaderCallbacks_Delete(cbs);
  reader.check_call(registered, "registering event callbacks");
  uint64_t count = 0;
  const OTF2_ErrorCode read = OTF2_Reader_ReadAllLocalEvents(reader.get(), evt_reader, &count);
  if (sink.failure) std::rethrow_exception(sink.failure);
  if (read != OTF2_SUCCESS) {
    throw InputError("the trace of " + what + " in '" + experiment +
                     "' is corrupt or truncated (" + OTF2_Error_GetDescription(read) + ")");
  }
  reader.check_call(OTF2_Reader_CloseEvtReader(reader.get(), evt_reader), "closing the events");
  reader.check_call(OTF2_Reader_CloseEvtFiles(reader.get()), "closing the event files");
  sink.builder.finish();
}

}  // namespace

std::string anchor_path(const std::string& experiment) {
  if (experiment.size() > 5 && experiment.ends_with(".otf2")) return experiment;
  return (fs::path(experiment) / "traces.otf2").string();
}

Definitions read_definitions(const std::string& experiment) {
  ReaderHandle reader(experiment);
  GlobalDefs raw;
  OTF2_GlobalDefReader* def_reader = OTF2_Reader_GetGlobalDefReader(reader.get());
  if (def_reader == nullptr) {
    throw InputError("cannot read the definitions of '" + experiment + "' (traces.def missing?)");
  }
  OTF2_GlobalDefReaderCallbacks* cbs = OTF2_GlobalDefReaderCallbacks_New();
  OTF2_GlobalDefReaderCallbacks_SetStringCallback(cbs, on_string);
  OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cbs, on_region);
  OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cbs, on_location);
  OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(cbs, on_location_group);
  OTF2_GlobalDefReaderCallbacks_SetSystemTreeNodeCallback(cbs, on_node);
  OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cbs, on_group);
  OTF2_GlobalDefReaderCallbacks_SetCommCallback(cbs, on_comm);
  OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cbs, on_clock_properties);
  const OTF2_ErrorCode registered =
      OTF2_Reader_RegisterGlobalDefCallbacks(reader.get(), def_reader, cbs, &raw);
  OTF2_GlobalDefReaderCallbacks_Delete(cbs);
  reader.check_call(registered, "registering definition callbacks");
  uint64_t count = 0;
  reader.check_call(OTF2_Reader_ReadAllGlobalDefinitions(reader.get(), def_reader, &count),
                    "reading the global definitions");

  // Readers index tables by these ids: an id far beyond the number of
  // definitions is a corrupt file, not a table of billions of entries to allocate.
  auto check_id = [&](uint64_t id, std::size_t defined, const char* what) {
    if (id >= 4 * static_cast<uint64_t>(defined) + 1024) {
      throw InputError("the definitions of '" + experiment + "' are corrupt: " + what + " id " +
                       std::to_string(id) + " among " + std::to_string(defined) + " " + what +
                       " definitions");
    }
  };
  for (const auto& entry : raw.regions) check_id(entry.first, raw.regions.size(), "region");
  for (const auto& entry : raw.comms) check_id(entry.first, raw.comms.size(), "communicator");

  Definitions defs;
  defs.timer_resolution = raw.resolution;
  defs.global_offset = raw.global_offset;
  defs.trace_length = raw.trace_length;
  for (const auto& [id, region] : raw.regions) {
    if (id >= defs.regions.size()) defs.regions.resize(id + 1);
    RegionDef& def = defs.regions[id];
    def.name = raw.string(region.name);
    def.file = raw.string(region.file);
    def.line = static_cast<int32_t>(region.line);
    def.paradigm = to_paradigm(region.paradigm);
    def.role = to_role(region.role);
  }
  defs.ranks = resolve_ranks(raw);
  defs.threads = resolve_threads(raw, defs.ranks);
  for (const auto& [id, text] : raw.strings) {
    if (id > 4 * raw.strings.size() + 1024) continue;  // not dense: ignored, never huge
    if (id >= defs.strings.size()) defs.strings.resize(id + 1);
    defs.strings[id] = text;
  }
  for (const auto& [id, comm] : raw.comms) {
    CommDef def;
    def.name = raw.string(comm.name);
    if (auto g = raw.groups.find(comm.group); g != raw.groups.end()) {
      def.is_self = g->second.type == OTF2_GROUP_TYPE_COMM_SELF;
      for (uint64_t member : g->second.members) def.members.push_back(static_cast<uint32_t>(member));
    }
    defs.comms[id] = std::move(def);
  }
  if (defs.ranks.empty()) {
    throw InputError("the trace of '" + experiment + "' defines no MPI ranks");
  }
  return defs;
}

void add_measurement_regions(Definitions& definitions) {
  for (const char* name : {kBufferFlushRegion, kMeasurementOffRegion}) {
    RegionDef def;
    def.name = name;
    def.paradigm = Paradigm::kMeasurement;
    def.role = RegionRole::kArtificial;
    definitions.regions.push_back(def);
  }
}

namespace {

/// Reads the events of OTF2 location `location` into `trace` (`what` names
/// it in messages). With `own_clock`, the location's clock offsets are read
/// from its local definitions; otherwise `trace.clock_offsets` are used as given.
void read_location_trace(const std::string& experiment, const Definitions& definitions,
                         uint64_t location, const std::string& what, bool own_clock,
                         LocalTrace& trace, const IdMapping* mapping) {
  trace.measurement_regions = static_cast<uint32_t>(definitions.regions.size());
  const fs::path dir = fs::path(anchor_path(experiment)).replace_extension("");
  const fs::path events_file = dir / (std::to_string(location) + ".evt");
  if (!fs::exists(events_file)) {
    throw InputError("the trace of " + what + " is missing: " + events_file.string() +
                     " does not exist");
  }
  ReaderHandle reader(experiment);
  // Orrery's measurement writes an ORRERY_FLUSH region around every
  // BufferFlush event (docs/trace-conventions.md): count those, not both.
  char* creator = nullptr;
  if (OTF2_Reader_GetCreator(reader.get(), &creator) == OTF2_SUCCESS && creator != nullptr) {
    trace.flushes_are_regions = std::string_view(creator).starts_with("Orrery");
  }
  std::free(creator);
  reader.check_call(OTF2_Reader_SelectLocation(reader.get(), location), "selecting the location");

  const bool has_local_defs = own_clock && fs::exists(dir / (std::to_string(location) + ".def"));
  LocalDefinitions local;
  local.trace = &trace;
  if (has_local_defs) {
    reader.check_call(OTF2_Reader_OpenDefFiles(reader.get()), "opening the local definitions");
    OTF2_DefReader* def_reader = OTF2_Reader_GetDefReader(reader.get(), location);
    if (def_reader != nullptr) {
      OTF2_DefReaderCallbacks* cbs = OTF2_DefReaderCallbacks_New();
      set_local_definition_callbacks(cbs);
      const OTF2_ErrorCode registered =
          OTF2_Reader_RegisterDefCallbacks(reader.get(), def_reader, cbs, &local);
      OTF2_DefReaderCallbacks_Delete(cbs);
      reader.check_call(registered, "registering local definition callbacks");
      uint64_t count = 0;
      reader.check_call(OTF2_Reader_ReadAllLocalDefinitions(reader.get(), def_reader, &count),
                        "reading the local definitions");
      reader.check_call(OTF2_Reader_CloseDefReader(reader.get(), def_reader),
                        "closing the local definitions");
    }
    reader.check_call(OTF2_Reader_CloseDefFiles(reader.get()), "closing the definition files");
  }

  // Orrery's own decoder where it can (otf2_fast_path.h), libotf2 otherwise.
  const uint64_t chunk_size = libotf2_forced() ? 0 : decoder_chunk_size(reader.get());
  if (chunk_size != 0 &&
      read_events_with_decoder(events_file.string(), chunk_size, local, definitions, mapping, trace,
                               "the trace of " + what + " in '" + experiment + "'")) {
    return;
  }
  if (mapping != nullptr) {
    read_events_with_libotf2<true>(reader, location, what, experiment, definitions, mapping, trace);
  } else {
    read_events_with_libotf2<false>(reader, location, what, experiment, definitions, mapping, trace);
  }
  trace.read_by_libotf2 = true;
}

}  // namespace

void read_rank_trace(const std::string& experiment, const Definitions& definitions, uint32_t rank,
                     LocalTrace& trace, const IdMapping* mapping) {
  trace.rank = rank;
  read_location_trace(experiment, definitions, definitions.ranks.at(rank).location,
                      "rank " + std::to_string(rank), true, trace, mapping);
}

void read_thread_trace(const std::string& experiment, const Definitions& definitions,
                       uint32_t rank, const ThreadDef& thread,
                       const std::vector<ClockOffsetPoint>& clock_offsets, LocalTrace& trace) {
  trace.rank = rank;
  trace.clock_offsets = clock_offsets;
  read_location_trace(experiment, definitions, thread.location,
                      "rank " + std::to_string(rank) + " thread " + std::to_string(thread.number),
                      false, trace, nullptr);
  // Only the clock condition reads the recorded message times, and it runs
  // on the ranks' own traces, not on their threads'.
  trace.send_post_times = {};
  trace.recv_times = {};
}

}  // namespace orrery::analyzer

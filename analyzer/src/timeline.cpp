// The timeline reader: one rank's events as region instances and message
// ends, for display. Like otf2_reader.cpp every OTF2 error goes through
// check() and no exception crosses OTF2's C frames.

#include "orrery/analyzer/timeline.h"

#include <otf2/otf2.h>

#include <cstdarg>
#include <algorithm>
#include <exception>
#include <filesystem>
#include <map>
#include <unordered_map>

#include "orrery/error.h"

namespace orrery::analyzer::timeline {
namespace {

namespace fs = std::filesystem;

OTF2_ErrorCode quiet(void*, const char*, uint64_t, const char*, OTF2_ErrorCode code, const char*,
                     va_list) {
  return code;
}

std::string anchor_of(const std::string& experiment) {
  if (experiment.size() > 5 && experiment.ends_with(".otf2")) return experiment;
  return (fs::path(experiment) / "traces.otf2").string();
}

void check(OTF2_ErrorCode code, const std::string& experiment, const char* what) {
  if (code == OTF2_SUCCESS) return;
  throw InputError("cannot read the trace of '" + experiment + "': " + what + " failed (" +
                   OTF2_Error_GetDescription(code) + ")");
}

class Reader {
 public:
  explicit Reader(const std::string& experiment) : experiment_(experiment) {
    OTF2_Error_RegisterCallback(quiet, nullptr);
    const std::string anchor = anchor_of(experiment);
    if (!fs::exists(anchor)) throw InputError("no trace: " + anchor + " does not exist");
    reader_ = OTF2_Reader_Open(anchor.c_str());
    if (reader_ == nullptr) throw InputError("cannot open the OTF2 archive " + anchor);
    call(OTF2_Reader_SetSerialCollectiveCallbacks(reader_), "setting up the reader");
  }
  ~Reader() { OTF2_Reader_Close(reader_); }
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;
  [[nodiscard]] OTF2_Reader* get() const { return reader_; }
  void call(OTF2_ErrorCode code, const char* what) const { check(code, experiment_, what); }

 private:
  std::string experiment_;
  OTF2_Reader* reader_ = nullptr;
};

struct RawDefs {
  std::unordered_map<uint32_t, std::string> strings;
  struct RegionRaw { uint32_t name; OTF2_Paradigm paradigm; };
  std::map<uint32_t, RegionRaw> regions;
  struct Group { OTF2_GroupType type; OTF2_Paradigm paradigm; std::vector<uint64_t> members; };
  std::map<uint32_t, Group> groups;
  std::map<uint32_t, uint32_t> comms;  // comm -> group
  struct Loc { uint32_t name; uint64_t group; };
  std::map<uint64_t, Loc> locations;
  std::map<uint64_t, OTF2_LocationGroupType> location_groups;
  uint64_t resolution = 1000000000;
  uint64_t offset = 0;
  uint64_t length = 0;
  [[nodiscard]] std::string string(uint32_t ref) const {
    auto it = strings.find(ref);
    return it == strings.end() ? std::string() : it->second;
  }
};

RawDefs& defs_of(void* user) { return *static_cast<RawDefs*>(user); }

OTF2_CallbackCode def_string(void* user, OTF2_StringRef self, const char* text) {
  defs_of(user).strings[self] = text != nullptr ? text : "";
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode def_region(void* user, OTF2_RegionRef self, OTF2_StringRef name, OTF2_StringRef,
                             OTF2_StringRef, OTF2_RegionRole, OTF2_Paradigm paradigm,
                             OTF2_RegionFlag, OTF2_StringRef, uint32_t, uint32_t) {
  defs_of(user).regions[self] = {name, paradigm};
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode def_location(void* user, OTF2_LocationRef self, OTF2_StringRef name,
                               OTF2_LocationType, uint64_t, OTF2_LocationGroupRef group) {
  defs_of(user).locations[self] = {name, group};
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode def_location_group(void* user, OTF2_LocationGroupRef self, OTF2_StringRef,
                                     OTF2_LocationGroupType type, OTF2_SystemTreeNodeRef,
                                     OTF2_LocationGroupRef) {
  defs_of(user).location_groups[self] = type;
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode def_group(void* user, OTF2_GroupRef self, OTF2_StringRef, OTF2_GroupType type,
                            OTF2_Paradigm paradigm, OTF2_GroupFlag, uint32_t count,
                            const uint64_t* members) {
  defs_of(user).groups[self] = {type, paradigm, std::vector<uint64_t>(members, members + count)};
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode def_comm(void* user, OTF2_CommRef self, OTF2_StringRef, OTF2_GroupRef group,
                           OTF2_CommRef, OTF2_CommFlag) {
  defs_of(user).comms[self] = group;
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode def_clock(void* user, uint64_t resolution, uint64_t offset, uint64_t length,
                            uint64_t) {
  RawDefs& defs = defs_of(user);
  defs.resolution = resolution == 0 ? 1000000000 : resolution;
  defs.offset = offset;
  defs.length = length;
  return OTF2_CALLBACK_SUCCESS;
}

/// World ranks' locations: the MPI COMM_LOCATIONS group, else the first
/// location of each process location group (as the analyzer resolves them).
std::vector<uint64_t> rank_locations(const RawDefs& raw) {
  std::vector<uint64_t> out;
  for (const auto& [id, group] : raw.groups) {
    if (group.type == OTF2_GROUP_TYPE_COMM_LOCATIONS && group.paradigm == OTF2_PARADIGM_MPI) {
      out = group.members;
    }
  }
  if (!out.empty()) return out;
  for (const auto& [group_id, type] : raw.location_groups) {
    if (type != OTF2_LOCATION_GROUP_TYPE_PROCESS) continue;
    for (const auto& [loc_id, loc] : raw.locations) {
      if (loc.group == group_id) {
        out.push_back(loc_id);
        break;
      }
    }
  }
  return out;
}

/// Event state of one rank while reading.
struct Sink {
  const Definitions* defs = nullptr;
  RankTimeline* out = nullptr;
  std::vector<uint32_t> stack;
  double last = 0;
  std::exception_ptr failure;

  [[nodiscard]] double seconds(OTF2_TimeStamp t) const {
    const auto ticks = static_cast<double>(static_cast<int64_t>(t - defs->global_offset));
    return ticks / static_cast<double>(defs->resolution);
  }
  [[nodiscard]] uint32_t world(uint32_t comm, uint32_t peer) const {
    if (comm < defs->comm_is_self.size() && defs->comm_is_self[comm]) return out->rank;
    if (comm < defs->comm_members.size() && peer < defs->comm_members[comm].size()) {
      return defs->comm_members[comm][peer];
    }
    return peer;
  }
  void message(bool send, double t, uint32_t comm, uint32_t peer, uint32_t tag, uint64_t bytes) {
    MessageEnd end;
    end.time = t;
    end.call_enter = t;
    end.comm = comm;
    end.peer = world(comm, peer);
    end.tag = tag;
    end.bytes = bytes;
    if (!stack.empty()) {
      end.instance = stack.back();
      end.call_enter = out->instances[end.instance].begin;
      if (send) end.time = end.call_enter;
    }
    (send ? out->sends : out->receives).push_back(end);
  }
};

template <class F>
OTF2_CallbackCode guarded(void* user, OTF2_TimeStamp time, F&& body) {
  auto* sink = static_cast<Sink*>(user);
  try {
    const double t = sink->seconds(time);
    sink->last = t;
    body(*sink, t);
    return OTF2_CALLBACK_SUCCESS;
  } catch (...) {
    sink->failure = std::current_exception();
    return OTF2_CALLBACK_INTERRUPT;
  }
}

OTF2_CallbackCode ev_enter(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void* user,
                           OTF2_AttributeList*,
                           OTF2_RegionRef region) {
  return guarded(user, time, [&](Sink& s, double t) {
    Instance instance;
    instance.begin = t;
    instance.end = t;
    instance.region = region;
    instance.parent = s.stack.empty() ? kNoInstance : s.stack.back();
    instance.depth = static_cast<uint32_t>(s.stack.size());
    s.stack.push_back(static_cast<uint32_t>(s.out->instances.size()));
    s.out->instances.push_back(instance);
  });
}
OTF2_CallbackCode ev_leave(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void* user,
                           OTF2_AttributeList*,
                           OTF2_RegionRef) {
  return guarded(user, time, [&](Sink& s, double t) {
    if (s.stack.empty()) return;  // an unmatched leave: nothing to close
    s.out->instances[s.stack.back()].end = t;
    s.stack.pop_back();
  });
}
OTF2_CallbackCode ev_send(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void* user,
                           OTF2_AttributeList*,
                          uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t bytes) {
  return guarded(user, time, [&](Sink& s, double t) { s.message(true, t, comm, peer, tag, bytes); });
}
OTF2_CallbackCode ev_isend(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void* user,
                           OTF2_AttributeList*,
                           uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t bytes,
                           uint64_t) {
  return guarded(user, time, [&](Sink& s, double t) { s.message(true, t, comm, peer, tag, bytes); });
}
OTF2_CallbackCode ev_recv(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void* user,
                           OTF2_AttributeList*,
                          uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t bytes) {
  return guarded(user, time, [&](Sink& s, double t) { s.message(false, t, comm, peer, tag, bytes); });
}
OTF2_CallbackCode ev_irecv(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void* user,
                           OTF2_AttributeList*,
                           uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t bytes,
                           uint64_t) {
  return guarded(user, time, [&](Sink& s, double t) { s.message(false, t, comm, peer, tag, bytes); });
}

}  // namespace

std::size_t RankTimeline::bytes() const {
  return sizeof(*this) + instances.capacity() * sizeof(Instance) +
         segments.capacity() * sizeof(Segment) +
         (sends.capacity() + receives.capacity()) * sizeof(MessageEnd);
}

bool has_trace(const std::string& experiment) {
  std::error_code ignored;
  return fs::is_regular_file(anchor_of(experiment), ignored);
}

Definitions read_definitions(const std::string& experiment) {
  Reader reader(experiment);
  RawDefs raw;
  OTF2_GlobalDefReader* def_reader = OTF2_Reader_GetGlobalDefReader(reader.get());
  if (def_reader == nullptr) {
    throw InputError("cannot read the definitions of the trace '" + experiment + "'");
  }
  OTF2_GlobalDefReaderCallbacks* cbs = OTF2_GlobalDefReaderCallbacks_New();
  OTF2_GlobalDefReaderCallbacks_SetStringCallback(cbs, def_string);
  OTF2_GlobalDefReaderCallbacks_SetRegionCallback(cbs, def_region);
  OTF2_GlobalDefReaderCallbacks_SetLocationCallback(cbs, def_location);
  OTF2_GlobalDefReaderCallbacks_SetLocationGroupCallback(cbs, def_location_group);
  OTF2_GlobalDefReaderCallbacks_SetGroupCallback(cbs, def_group);
  OTF2_GlobalDefReaderCallbacks_SetCommCallback(cbs, def_comm);
  OTF2_GlobalDefReaderCallbacks_SetClockPropertiesCallback(cbs, def_clock);
  const OTF2_ErrorCode registered =
      OTF2_Reader_RegisterGlobalDefCallbacks(reader.get(), def_reader, cbs, &raw);
  OTF2_GlobalDefReaderCallbacks_Delete(cbs);
  reader.call(registered, "registering definition callbacks");
  uint64_t count = 0;
  reader.call(OTF2_Reader_ReadAllGlobalDefinitions(reader.get(), def_reader, &count),
              "reading the global definitions");

  Definitions defs;
  defs.experiment = experiment;
  defs.resolution = raw.resolution;
  defs.global_offset = raw.offset;
  defs.duration = static_cast<double>(raw.length) / static_cast<double>(raw.resolution);
  for (const auto& [id, region] : raw.regions) {
    if (id >= defs.regions.size()) defs.regions.resize(std::size_t{id} + 1);
    Region& def = defs.regions[id];
    def.name = raw.string(region.name);
    def.kind = region.paradigm == OTF2_PARADIGM_MPI ? RegionKind::kMpi
               : region.paradigm == OTF2_PARADIGM_MEASUREMENT_SYSTEM &&
                       def.name.rfind("ORRERY_", 0) == 0
                   ? RegionKind::kMeasurement
                   : RegionKind::kCompute;
  }
  for (uint64_t location : rank_locations(raw)) {
    Rank rank;
    rank.location = location;
    if (auto it = raw.locations.find(location); it != raw.locations.end()) {
      rank.name = raw.string(it->second.name);
    }
    defs.ranks.push_back(std::move(rank));
  }
  if (defs.ranks.empty()) throw InputError("the trace of '" + experiment + "' defines no MPI ranks");
  for (const auto& [id, group_id] : raw.comms) {
    if (id >= defs.comm_members.size()) {
      defs.comm_members.resize(std::size_t{id} + 1);
      defs.comm_is_self.resize(std::size_t{id} + 1, false);
    }
    if (auto g = raw.groups.find(group_id); g != raw.groups.end()) {
      defs.comm_is_self[id] = g->second.type == OTF2_GROUP_TYPE_COMM_SELF;
      for (uint64_t member : g->second.members) {
        defs.comm_members[id].push_back(static_cast<uint32_t>(member));
      }
    }
  }
  return defs;
}

RankTimeline read_rank(const Definitions& definitions, uint32_t rank) {
  if (rank >= definitions.ranks.size()) {
    throw InputError("the trace has no rank " + std::to_string(rank));
  }
  const std::string& experiment = definitions.experiment;
  const uint64_t location = definitions.ranks[rank].location;
  const fs::path dir = fs::path(anchor_of(experiment)).replace_extension("");
  if (!fs::exists(dir / (std::to_string(location) + ".evt"))) {
    throw InputError("the trace of rank " + std::to_string(rank) + " is missing");
  }
  Reader reader(experiment);
  reader.call(OTF2_Reader_SelectLocation(reader.get(), location), "selecting the location");
  // The event reader exists before the local definitions are read, so that
  // OTF2 picks up the rank's clock offsets and applies them to the events.
  reader.call(OTF2_Reader_OpenEvtFiles(reader.get()), "opening the event files");
  OTF2_EvtReader* evt_reader = OTF2_Reader_GetEvtReader(reader.get(), location);
  if (evt_reader == nullptr) throw InputError("cannot read the events of rank " + std::to_string(rank));
  reader.call(OTF2_EvtReader_ApplyClockOffsets(evt_reader, true), "configuring the event reader");
  if (fs::exists(dir / (std::to_string(location) + ".def"))) {
    reader.call(OTF2_Reader_OpenDefFiles(reader.get()), "opening the local definitions");
    OTF2_DefReader* def_reader = OTF2_Reader_GetDefReader(reader.get(), location);
    if (def_reader != nullptr) {
      uint64_t count = 0;
      reader.call(OTF2_Reader_ReadAllLocalDefinitions(reader.get(), def_reader, &count),
                  "reading the local definitions");
      reader.call(OTF2_Reader_CloseDefReader(reader.get(), def_reader),
                  "closing the local definitions");
    }
    reader.call(OTF2_Reader_CloseDefFiles(reader.get()), "closing the definition files");
  }

  RankTimeline out;
  out.rank = rank;
  Sink sink;
  sink.defs = &definitions;
  sink.out = &out;
  OTF2_EvtReaderCallbacks* cbs = OTF2_EvtReaderCallbacks_New();
  OTF2_EvtReaderCallbacks_SetEnterCallback(cbs, ev_enter);
  OTF2_EvtReaderCallbacks_SetLeaveCallback(cbs, ev_leave);
  OTF2_EvtReaderCallbacks_SetMpiSendCallback(cbs, ev_send);
  OTF2_EvtReaderCallbacks_SetMpiIsendCallback(cbs, ev_isend);
  OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cbs, ev_recv);
  OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(cbs, ev_irecv);
  const OTF2_ErrorCode registered =
      OTF2_Reader_RegisterEvtCallbacks(reader.get(), evt_reader, cbs, &sink);
  OTF2_EvtReaderCallbacks_Delete(cbs);
  reader.call(registered, "registering event callbacks");
  uint64_t count = 0;
  const OTF2_ErrorCode read = OTF2_Reader_ReadAllLocalEvents(reader.get(), evt_reader, &count);
  if (sink.failure) std::rethrow_exception(sink.failure);
  if (read != OTF2_SUCCESS) {
    throw InputError("the trace of rank " + std::to_string(rank) + " is corrupt or truncated (" +
                     OTF2_Error_GetDescription(read) + ")");
  }
  reader.call(OTF2_Reader_CloseEvtReader(reader.get(), evt_reader), "closing the events");
  reader.call(OTF2_Reader_CloseEvtFiles(reader.get()), "closing the event files");

  // Regions still open at the end (a truncated trace) end at the last event.
  for (uint32_t open : sink.stack) out.instances[open].end = sink.last;
  for (MessageEnd& receive : out.receives) {
    if (receive.instance != kNoInstance) receive.time = out.instances[receive.instance].end;
  }
  out.segments = flatten(out.instances);
  out.instances.shrink_to_fit();
  out.sends.shrink_to_fit();
  out.receives.shrink_to_fit();
  return out;
}

std::vector<Segment> flatten(const std::vector<Instance>& instances) {
  std::vector<Segment> out;
  out.reserve(instances.size() * 2);
  std::vector<uint32_t> open;  // open instances, innermost last
  double cursor = 0;
  auto emit = [&out, &cursor](double until, uint32_t instance) {
    if (until > cursor) {
      out.push_back({cursor, until, instance});
      cursor = until;
    }
  };
  // Closes the innermost open instance: its tail after its last child.
  auto close_top = [&] {
    emit(instances[open.back()].end, open.back());
    open.pop_back();
  };
  for (uint32_t i = 0; i < instances.size(); ++i) {
    const Instance& instance = instances[i];
    while (!open.empty() && open.back() != instance.parent) close_top();
    if (open.empty()) cursor = std::max(cursor, instance.begin);  // a gap between roots
    else emit(instance.begin, open.back());
    cursor = std::max(cursor, instance.begin);
    open.push_back(i);
  }
  while (!open.empty()) close_top();
  return out;
}

}  // namespace orrery::analyzer::timeline

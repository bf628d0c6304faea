// The timeline reader: one rank's events as region instances and message
// ends, for display. The definitions are the analyzer's own
// (otf2_reader.cpp); like there, every OTF2 error goes through
// ReaderHandle::check_call() and no exception crosses OTF2's C frames.

#include "orrery/analyzer/timeline.h"

#include <otf2/otf2.h>

#include <algorithm>
#include <exception>
#include <filesystem>

#include "orrery/analyzer/trace_reader.h"
#include "orrery/error.h"
#include "otf2_handle.h"

namespace orrery::analyzer::timeline {
namespace {

namespace fs = std::filesystem;

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
// Resource samples: the metric class of docs/trace-conventions.md (six
// unsigned members); metrics of any other shape are not Orrery's samples.
OTF2_CallbackCode ev_metric(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void* user,
                            OTF2_AttributeList*, OTF2_MetricRef, uint8_t members,
                            const OTF2_Type* types, const OTF2_MetricValue* values) {
  return guarded(user, time, [&](Sink& s, double t) {
    if (members != kSampleMembers.size()) return;
    Sample sample;
    sample.time = t;
    for (std::size_t i = 0; i < kSampleMembers.size(); ++i) {
      if (types[i] != OTF2_TYPE_UINT64) return;
      sample.values[i] = values[i].unsigned_int;
    }
    s.out->samples.push_back(sample);
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
         (sends.capacity() + receives.capacity()) * sizeof(MessageEnd) +
         samples.capacity() * sizeof(Sample);
}

bool has_trace(const std::string& experiment) {
  std::error_code ignored;
  return fs::is_regular_file(anchor_path(experiment), ignored);
}

Definitions read_definitions(const std::string& experiment) {
  // The analyzer's own reading of the definitions (ranks resolved the same
  // way), reduced to what the timeline draws.
  const analyzer::Definitions full = analyzer::read_definitions(experiment);
  Definitions defs;
  defs.experiment = experiment;
  defs.resolution = full.timer_resolution;
  defs.global_offset = full.global_offset;
  defs.duration = static_cast<double>(full.trace_length) / static_cast<double>(full.timer_resolution);
  for (const RegionDef& region : full.regions) {
    Region def;
    def.name = region.name;
    def.kind = region.paradigm == Paradigm::kMpi ? RegionKind::kMpi
               : region.paradigm == Paradigm::kMeasurement && def.name.rfind("ORRERY_", 0) == 0
                   ? RegionKind::kMeasurement
                   : RegionKind::kCompute;
    defs.regions.push_back(std::move(def));
  }
  for (const RankDef& rank : full.ranks) defs.ranks.push_back(Rank{rank.location, rank.name});
  for (const auto& [id, comm] : full.comms) {
    if (id >= defs.comm_members.size()) {
      defs.comm_members.resize(std::size_t{id} + 1);
      defs.comm_is_self.resize(std::size_t{id} + 1, false);
    }
    defs.comm_is_self[id] = comm.is_self;
    defs.comm_members[id] = comm.members;
  }
  return defs;
}

RankTimeline read_rank(const Definitions& definitions, uint32_t rank) {
  if (rank >= definitions.ranks.size()) {
    throw InputError("the trace has no rank " + std::to_string(rank));
  }
  const std::string& experiment = definitions.experiment;
  const uint64_t location = definitions.ranks[rank].location;
  const fs::path dir = fs::path(anchor_path(experiment)).replace_extension("");
  if (!fs::exists(dir / (std::to_string(location) + ".evt"))) {
    throw InputError("the trace of rank " + std::to_string(rank) + " is missing");
  }
  ReaderHandle reader(experiment);
  reader.check_call(OTF2_Reader_SelectLocation(reader.get(), location), "selecting the location");
  // The event reader exists before the local definitions are read, so that
  // OTF2 picks up the rank's clock offsets and applies them to the events.
  reader.check_call(OTF2_Reader_OpenEvtFiles(reader.get()), "opening the event files");
  OTF2_EvtReader* evt_reader = OTF2_Reader_GetEvtReader(reader.get(), location);
  if (evt_reader == nullptr) throw InputError("cannot read the events of rank " + std::to_string(rank));
  reader.check_call(OTF2_EvtReader_ApplyClockOffsets(evt_reader, true),
                    "configuring the event reader");
  if (fs::exists(dir / (std::to_string(location) + ".def"))) {
    reader.check_call(OTF2_Reader_OpenDefFiles(reader.get()), "opening the local definitions");
    OTF2_DefReader* def_reader = OTF2_Reader_GetDefReader(reader.get(), location);
    if (def_reader != nullptr) {
      uint64_t count = 0;
      reader.check_call(OTF2_Reader_ReadAllLocalDefinitions(reader.get(), def_reader, &count),
                        "reading the local definitions");
      reader.check_call(OTF2_Reader_CloseDefReader(reader.get(), def_reader),
                        "closing the local definitions");
    }
    reader.check_call(OTF2_Reader_CloseDefFiles(reader.get()), "closing the definition files");
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
  OTF2_EvtReaderCallbacks_SetMetricCallback(cbs, ev_metric);
  const OTF2_ErrorCode registered =
      OTF2_Reader_RegisterEvtCallbacks(reader.get(), evt_reader, cbs, &sink);
  OTF2_EvtReaderCallbacks_Delete(cbs);
  reader.check_call(registered, "registering event callbacks");
  uint64_t count = 0;
  const OTF2_ErrorCode read = OTF2_Reader_ReadAllLocalEvents(reader.get(), evt_reader, &count);
  if (sink.failure) std::rethrow_exception(sink.failure);
  if (read != OTF2_SUCCESS) {
    throw InputError("the trace of rank " + std::to_string(rank) + " is corrupt or truncated (" +
                     OTF2_Error_GetDescription(read) + ")");
  }
  reader.check_call(OTF2_Reader_CloseEvtReader(reader.get(), evt_reader), "closing the events");
  reader.check_call(OTF2_Reader_CloseEvtFiles(reader.get()), "closing the event files");

  // Regions still open at the end (a truncated trace) end at the last event.
  for (uint32_t open : sink.stack) out.instances[open].end = sink.last;
  for (MessageEnd& receive : out.receives) {
    if (receive.instance != kNoInstance) receive.time = out.instances[receive.instance].end;
  }
  out.segments = flatten(out.instances);
  out.instances.shrink_to_fit();
  out.sends.shrink_to_fit();
  out.receives.shrink_to_fit();
  out.samples.shrink_to_fit();
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

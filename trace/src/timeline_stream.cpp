// Streaming one rank's events to an EventVisitor (timeline_stream.h). Like
// otf2_reader.cpp, every OTF2 error goes through ReaderHandle::check_call()
// and no exception crosses OTF2's C frames.

#include "orrery/trace/timeline_stream.h"

#include <otf2/otf2.h>

#include <exception>
#include <filesystem>
#include <string>

#include "orrery/trace/trace_reader.h"
#include "orrery/error.h"
#include "otf2_handle.h"

namespace orrery::analyzer::timeline {
namespace {

namespace fs = std::filesystem;

struct Stream {
  const Definitions* defs = nullptr;
  uint32_t rank = 0;
  EventVisitor* visitor = nullptr;
  std::exception_ptr failure;
  bool stopped = false;

  [[nodiscard]] int64_t ticks(OTF2_TimeStamp t) const { return static_cast<int64_t>(t - defs->global_offset); }
  [[nodiscard]] uint32_t world(uint32_t comm, uint32_t peer) const {
    if (comm < defs->comm_is_self.size() && defs->comm_is_self[comm]) return rank;
    if (comm < defs->comm_members.size() && peer < defs->comm_members[comm].size()) {
      return defs->comm_members[comm][peer];
    }
    return peer;
  }
};

template <class F>
OTF2_CallbackCode guarded(void* user, F&& body) {
  auto* stream = static_cast<Stream*>(user);
  try {
    body(*stream);
    if (stream->visitor->done()) {
      stream->stopped = true;
      return OTF2_CALLBACK_INTERRUPT;
    }
    return OTF2_CALLBACK_SUCCESS;
  } catch (...) {
    stream->failure = std::current_exception();
    return OTF2_CALLBACK_INTERRUPT;
  }
}

OTF2_CallbackCode ev_enter(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t position, void* user,
                           OTF2_AttributeList*, OTF2_RegionRef region) {
  return guarded(user, [&](Stream& s) { s.visitor->enter(position, s.ticks(time), region); });
}
OTF2_CallbackCode ev_leave(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t position, void* user,
                           OTF2_AttributeList*, OTF2_RegionRef) {
  return guarded(user, [&](Stream& s) { s.visitor->leave(position, s.ticks(time)); });
}
// Resource samples: the metric class of docs/trace-conventions.md (six
// unsigned members); metrics of any other shape are not Orrery's samples.
OTF2_CallbackCode ev_metric(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t position, void* user,
                            OTF2_AttributeList*, OTF2_MetricRef, uint8_t members,
                            const OTF2_Type* types, const OTF2_MetricValue* values) {
  return guarded(user, [&](Stream& s) {
    if (members != kSampleMembers.size()) return;
    Sample sample;
    sample.time = seconds(*s.defs, s.ticks(time));
    for (std::size_t i = 0; i < kSampleMembers.size(); ++i) {
      if (types[i] != OTF2_TYPE_UINT64) return;
      sample.values[i] = values[i].unsigned_int;
    }
    s.visitor->sample(position, s.ticks(time), sample);
  });
}
OTF2_CallbackCode message(void* user, OTF2_TimeStamp time, uint64_t position, bool send, uint32_t peer,
                          OTF2_CommRef comm, uint32_t tag, uint64_t bytes) {
  return guarded(user, [&](Stream& s) {
    s.visitor->message(position, s.ticks(time), send, comm, s.world(comm, peer), tag, bytes);
  });
}
OTF2_CallbackCode ev_send(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t position, void* user,
                          OTF2_AttributeList*, uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t bytes) {
  return message(user, time, position, true, peer, comm, tag, bytes);
}
OTF2_CallbackCode ev_isend(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t position, void* user,
                           OTF2_AttributeList*, uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t bytes,
                           uint64_t) {
  return message(user, time, position, true, peer, comm, tag, bytes);
}
OTF2_CallbackCode ev_recv(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t position, void* user,
                          OTF2_AttributeList*, uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t bytes) {
  return message(user, time, position, false, peer, comm, tag, bytes);
}
OTF2_CallbackCode ev_irecv(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t position, void* user,
                           OTF2_AttributeList*, uint32_t peer, OTF2_CommRef comm, uint32_t tag, uint64_t bytes,
                           uint64_t) {
  return message(user, time, position, false, peer, comm, tag, bytes);
}

}  // namespace

void stream_rank(const Definitions& definitions, uint32_t rank, EventVisitor& visitor, uint64_t from_position) {
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
  reader.check_call(OTF2_EvtReader_ApplyClockOffsets(evt_reader, true), "configuring the event reader");
  if (fs::exists(dir / (std::to_string(location) + ".def"))) {
    reader.check_call(OTF2_Reader_OpenDefFiles(reader.get()), "opening the local definitions");
    OTF2_DefReader* def_reader = OTF2_Reader_GetDefReader(reader.get(), location);
    if (def_reader != nullptr) {
      uint64_t count = 0;
      reader.check_call(OTF2_Reader_ReadAllLocalDefinitions(reader.get(), def_reader, &count),
                        "reading the local definitions");
      reader.check_call(OTF2_Reader_CloseDefReader(reader.get(), def_reader), "closing the local definitions");
    }
    reader.check_call(OTF2_Reader_CloseDefFiles(reader.get()), "closing the definition files");
  }
  if (from_position > 0) {
    if (OTF2_EvtReader_Seek(evt_reader, from_position) != OTF2_SUCCESS) {
      throw InputError("the trace of rank " + std::to_string(rank) + " has no event " +
                       std::to_string(from_position) + " (the timeline summary does not match it)");
    }
  }

  Stream stream;
  stream.defs = &definitions;
  stream.rank = rank;
  stream.visitor = &visitor;
  OTF2_EvtReaderCallbacks* cbs = OTF2_EvtReaderCallbacks_New();
  OTF2_EvtReaderCallbacks_SetEnterCallback(cbs, ev_enter);
  OTF2_EvtReaderCallbacks_SetLeaveCallback(cbs, ev_leave);
  OTF2_EvtReaderCallbacks_SetMpiSendCallback(cbs, ev_send);
  OTF2_EvtReaderCallbacks_SetMpiIsendCallback(cbs, ev_isend);
  OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cbs, ev_recv);
  OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(cbs, ev_irecv);
  OTF2_EvtReaderCallbacks_SetMetricCallback(cbs, ev_metric);
  const OTF2_ErrorCode registered = OTF2_Reader_RegisterEvtCallbacks(reader.get(), evt_reader, cbs, &stream);
  OTF2_EvtReaderCallbacks_Delete(cbs);
  reader.check_call(registered, "registering event callbacks");
  uint64_t count = 0;
  const OTF2_ErrorCode read = OTF2_Reader_ReadAllLocalEvents(reader.get(), evt_reader, &count);
  if (stream.failure) std::rethrow_exception(stream.failure);
  if (read != OTF2_SUCCESS && !stream.stopped) {
    throw InputError("the trace of rank " + std::to_string(rank) + " is corrupt or truncated (" +
                     OTF2_Error_GetDescription(read) + ")");
  }
  reader.check_call(OTF2_Reader_CloseEvtReader(reader.get(), evt_reader), "closing the events");
  reader.check_call(OTF2_Reader_CloseEvtFiles(reader.get()), "closing the event files");
}

}  // namespace orrery::analyzer::timeline

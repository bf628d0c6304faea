// Reading one location's Enter/Leave events (region_events.h).

#include "orrery/trace/region_events.h"

#include <otf2/otf2.h>

#include "orrery/error.h"
#include "otf2_handle.h"

namespace orrery::analyzer {
namespace {

/// What the callbacks fill.
struct Events {
  std::vector<RegionEvent> events;
  uint32_t team_attribute = kNoTeamAttribute;
};

OTF2_CallbackCode on_enter(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void* user,
                           OTF2_AttributeList* attributes, OTF2_RegionRef region) {
  auto& read = *static_cast<Events*>(user);
  uint64_t team = 0;
  if (attributes != nullptr && read.team_attribute != kNoTeamAttribute &&
      OTF2_AttributeList_GetUint64(attributes, read.team_attribute, &team) != OTF2_SUCCESS) {
    team = 0;
  }
  read.events.push_back(RegionEvent{static_cast<int64_t>(time), region, true, team});
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_leave(OTF2_LocationRef, OTF2_TimeStamp time, uint64_t, void* user, OTF2_AttributeList*,
                           OTF2_RegionRef region) {
  static_cast<Events*>(user)->events.push_back(RegionEvent{static_cast<int64_t>(time), region, false});
  return OTF2_CALLBACK_SUCCESS;
}

}  // namespace

std::vector<RegionEvent> read_region_events(const std::string& experiment, uint64_t location,
                                            uint32_t team_attribute) {
  Events events;
  events.team_attribute = team_attribute;
  ReaderHandle reader(experiment);
  reader.check_call(OTF2_Reader_SelectLocation(reader.get(), location), "selecting a thread's location");
  reader.check_call(OTF2_Reader_OpenEvtFiles(reader.get()), "opening the event files");
  OTF2_EvtReader* evt_reader = OTF2_Reader_GetEvtReader(reader.get(), location);
  if (evt_reader == nullptr) {
    throw InputError("cannot read the events of location " + std::to_string(location) + " of '" + experiment + "'");
  }
  reader.check_call(OTF2_EvtReader_ApplyClockOffsets(evt_reader, false), "configuring the event reader");
  OTF2_EvtReaderCallbacks* cbs = OTF2_EvtReaderCallbacks_New();
  OTF2_EvtReaderCallbacks_SetEnterCallback(cbs, on_enter);
  OTF2_EvtReaderCallbacks_SetLeaveCallback(cbs, on_leave);
  const OTF2_ErrorCode registered = OTF2_Reader_RegisterEvtCallbacks(reader.get(), evt_reader, cbs, &events);
  OTF2_EvtReaderCallbacks_Delete(cbs);
  reader.check_call(registered, "registering event callbacks");
  uint64_t count = 0;
  const OTF2_ErrorCode read = OTF2_Reader_ReadAllLocalEvents(reader.get(), evt_reader, &count);
  if (read != OTF2_SUCCESS) {
    throw InputError("the trace of location " + std::to_string(location) + " in '" + experiment +
                     "' is corrupt or truncated (" + OTF2_Error_GetDescription(read) + ")");
  }
  reader.check_call(OTF2_Reader_CloseEvtReader(reader.get(), evt_reader), "closing the events");
  reader.check_call(OTF2_Reader_CloseEvtFiles(reader.get()), "closing the event files");
  return std::move(events.events);
}

}  // namespace orrery::analyzer

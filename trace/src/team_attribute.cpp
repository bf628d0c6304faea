// The "OpenMP team" attribute's id in an archive's global definitions
// (region_events.h): the measurement writes it on the Enter of every OpenMP
// implicit task (docs/openmp.md, "Nested parallel regions").

#include <otf2/otf2.h>

#include <cstring>
#include <unordered_set>

#include "orrery/trace/region_events.h"
#include "otf2_handle.h"

namespace orrery::analyzer {
namespace {

constexpr const char* kTeamAttributeName = "OpenMP team";

struct Lookup {
  std::unordered_set<OTF2_StringRef> team_strings;  ///< strings equal to the name
  uint32_t attribute = kNoTeamAttribute;
};

OTF2_CallbackCode on_string(void* user, OTF2_StringRef self, const char* string) {
  if (string != nullptr && std::strcmp(string, kTeamAttributeName) == 0) {
    static_cast<Lookup*>(user)->team_strings.insert(self);
  }
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode on_attribute(void* user, OTF2_AttributeRef self, OTF2_StringRef name, OTF2_StringRef,
                               OTF2_Type type) {
  auto& lookup = *static_cast<Lookup*>(user);
  if (type == OTF2_TYPE_UINT64 && lookup.team_strings.contains(name)) lookup.attribute = self;
  return OTF2_CALLBACK_SUCCESS;
}

}  // namespace

uint32_t read_team_attribute(const std::string& experiment) {
  ReaderHandle reader(experiment);
  OTF2_GlobalDefReader* defs = OTF2_Reader_GetGlobalDefReader(reader.get());
  if (defs == nullptr) return kNoTeamAttribute;
  OTF2_GlobalDefReaderCallbacks* cbs = OTF2_GlobalDefReaderCallbacks_New();
  OTF2_GlobalDefReaderCallbacks_SetStringCallback(cbs, on_string);
  OTF2_GlobalDefReaderCallbacks_SetAttributeCallback(cbs, on_attribute);
  Lookup lookup;
  const OTF2_ErrorCode registered = OTF2_Reader_RegisterGlobalDefCallbacks(reader.get(), defs, cbs, &lookup);
  OTF2_GlobalDefReaderCallbacks_Delete(cbs);
  reader.check_call(registered, "registering definition callbacks");
  uint64_t count = 0;
  reader.check_call(OTF2_Reader_ReadAllGlobalDefinitions(reader.get(), defs, &count), "reading the definitions");
  reader.check_call(OTF2_Reader_CloseGlobalDefReader(reader.get(), defs), "closing the definitions");
  return lookup.attribute;
}

}  // namespace orrery::analyzer

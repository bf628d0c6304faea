#include "otf2_handle.h"

#include <cstdarg>
#include <filesystem>

#include "orrery/trace/trace_reader.h"
#include "orrery/error.h"

namespace orrery::analyzer {
namespace {

OTF2_ErrorCode silence_otf2(void*, const char*, uint64_t, const char*, OTF2_ErrorCode code,
                            const char*, va_list) {
  return code;
}

}  // namespace

ReaderHandle::ReaderHandle(const std::string& experiment) : experiment_(experiment) {
  OTF2_Error_RegisterCallback(silence_otf2, nullptr);
  const std::string anchor = anchor_path(experiment);
  if (!std::filesystem::exists(anchor)) {
    throw InputError("'" + experiment + "' is not an Orrery experiment: " + anchor +
                     " does not exist");
  }
  reader_ = OTF2_Reader_Open(anchor.c_str());
  if (reader_ == nullptr) throw InputError("cannot open the OTF2 archive " + anchor);
  check_call(OTF2_Reader_SetSerialCollectiveCallbacks(reader_), "setting up the reader");
}

ReaderHandle::~ReaderHandle() { OTF2_Reader_Close(reader_); }

void ReaderHandle::check_call(OTF2_ErrorCode code, const char* what) const {
  if (code == OTF2_SUCCESS) return;
  throw InputError("cannot read the trace of '" + experiment_ + "': " + what + " failed (" +
                   OTF2_Error_GetDescription(code) + ")");
}

}  // namespace orrery::analyzer

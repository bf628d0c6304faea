#pragma once
// An open OTF2 archive on the reading side, shared by the analyzer's reader
// (otf2_reader.cpp) and the viewer's timeline reader (timeline.cpp): every
// OTF2 error code goes through check_call(), and OTF2's own error printing is
// silenced (we report errors once, in our words).

#include <otf2/otf2.h>

#include <string>

namespace orrery::analyzer {

/// Owns an OTF2_Reader and closes it on every path.
class ReaderHandle {
 public:
  /// Opens `experiment` (a directory with traces.otf2, or the anchor file).
  /// Throws InputError if it is not there or cannot be opened.
  explicit ReaderHandle(const std::string& experiment);
  ~ReaderHandle();
  ReaderHandle(const ReaderHandle&) = delete;
  ReaderHandle& operator=(const ReaderHandle&) = delete;
  [[nodiscard]] OTF2_Reader* get() const { return reader_; }
  /// Throws InputError naming the experiment and `what` unless `code` is success.
  void check_call(OTF2_ErrorCode code, const char* what) const;

 private:
  std::string experiment_;
  OTF2_Reader* reader_ = nullptr;
};

}  // namespace orrery::analyzer

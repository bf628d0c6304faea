#pragma once
// A minimal POSIX ustar writer: regular files only, enough for CUBE4's
// .cubex archives (anchor.xml plus per-metric .index and .data files).

#include <ostream>
#include <string>
#include <string_view>

namespace orrery::report::tools {

/// Writes a tar archive member by member to a stream.
class TarWriter {
 public:
  explicit TarWriter(std::ostream& out) : out_(out) {}
  /// Adds a regular file (name up to 100 bytes) with `data` as its content.
  void add(const std::string& name, std::string_view data);
  /// Writes the two zero blocks that end the archive.
  void finish();

 private:
  std::ostream& out_;
};

}  // namespace orrery::report::tools

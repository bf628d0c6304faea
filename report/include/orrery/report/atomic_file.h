#pragma once
// A file that appears under its name only when it is complete: written under
// a temporary name in the same directory, renamed over the target on commit,
// removed if never committed (a failed write, a full disk, an exception). A
// reader never finds a half-written report under the report's name.

#include <string>

namespace orrery::report {

/// The temporary name to write to, and the rename that publishes it.
class AtomicFile {
 public:
  explicit AtomicFile(std::string target);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  /// Where to write: a hidden name beside the target, unique to this process.
  [[nodiscard]] const std::string& temporary() const { return temporary_; }
  /// Renames the temporary file over the target; throws InputError if it cannot.
  void commit();
  /// Throws InputError for a failed write: names the target (not the temporary
  /// name) and a full disk as the cause where the file system is full.
  [[noreturn]] void fail(const std::string& cause) const;

 private:
  std::string target_;
  std::string temporary_;
  bool committed_ = false;
};

}  // namespace orrery::report

#include "orrery/report/atomic_file.h"

#include <unistd.h>

#include <filesystem>

#include "orrery/error.h"

namespace orrery::report {

namespace fs = std::filesystem;

AtomicFile::AtomicFile(std::string target) : target_(std::move(target)) {
  const fs::path path(target_);
  temporary_ = (path.parent_path() / ("." + path.filename().string() + ".partial-" +
                                      std::to_string(getpid())))
                   .string();
}

AtomicFile::~AtomicFile() {
  if (!committed_) {
    std::error_code ignored;
    fs::remove(temporary_, ignored);
  }
}

void AtomicFile::commit() {
  std::error_code error;
  fs::rename(temporary_, target_, error);
  if (error) {
    throw InputError(target_ + ": cannot write: " + error.message());
  }
  committed_ = true;
}

void AtomicFile::fail(const std::string& cause) const {
  std::error_code error;
  const auto space = fs::space(fs::path(target_).parent_path().empty()
                                   ? fs::path(".")
                                   : fs::path(target_).parent_path(),
                               error);
  constexpr std::uintmax_t kNearlyFull = std::uintmax_t{1} << 20;
  if (!error && space.available < kNearlyFull) {
    throw InputError(target_ + ": cannot write: no space left on the device (" +
                     std::to_string(space.available) + " bytes free); nothing was written");
  }
  std::string message = cause;
  for (auto at = message.find(temporary_); at != std::string::npos;
       at = message.find(temporary_, at + target_.size())) {
    message.replace(at, temporary_.size(), target_);
  }
  throw InputError(message + "; nothing was written");
}

}  // namespace orrery::report

#include "otf2_event_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "orrery/error.h"

namespace orrery::analyzer {

EventFile::EventFile(const std::string& path, uint64_t chunk_size)
    : path_(path), chunk_size_(chunk_size), buffer_(chunk_size + kPadding, 0) {
  descriptor_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (descriptor_ < 0) {
    throw InputError("cannot open the event file " + path + ": " + std::strerror(errno));
  }
  ::posix_fadvise(descriptor_, 0, 0, POSIX_FADV_SEQUENTIAL);
}

EventFile::~EventFile() {
  if (descriptor_ >= 0) ::close(descriptor_);
}

bool EventFile::next_chunk() {
  std::size_t filled = 0;
  while (filled < chunk_size_) {
    const ssize_t got = ::read(descriptor_, buffer_.data() + filled, chunk_size_ - filled);
    if (got < 0) {
      if (errno == EINTR) continue;
      throw InputError("cannot read the event file " + path_ + ": " + std::strerror(errno));
    }
    if (got == 0) break;
    filled += static_cast<std::size_t>(got);
  }
  // A cut chunk (the last one): zeros after the file's bytes (the padding
  // after the chunk is never written).
  if (filled < chunk_size_) {
    std::memset(buffer_.data() + filled, 0, buffer_.size() - filled);
  }
  loaded_ = filled;
  return filled > 0;
}

}  // namespace orrery::analyzer

#pragma once
// One location's OTF2 event file (.evt), read chunk by chunk into one
// reused buffer for Orrery's own decoder (otf2_event_decoder.h). OTF2 writes
// event files in chunks of the archive's event chunk size; every chunk starts
// with a chunk header, the last one is cut after its last record.

#include <cstdint>
#include <string>
#include <vector>

namespace orrery::analyzer {

/// Reads an event file one chunk at a time. The buffer holds the chunk and
/// kPadding zero bytes after it, so a decoder may load 8 bytes at any
/// position inside the chunk without reading outside the buffer.
class EventFile {
 public:
  static constexpr std::size_t kPadding = 16;

  /// Opens `path`; `chunk_size` is the archive's event chunk size. Throws
  /// InputError if the file cannot be opened.
  EventFile(const std::string& path, uint64_t chunk_size);
  ~EventFile();
  EventFile(const EventFile&) = delete;
  EventFile& operator=(const EventFile&) = delete;

  /// Loads the next chunk; false when the file has no more bytes. Throws
  /// InputError if reading fails.
  bool next_chunk();

  /// The loaded chunk: [begin, chunk_end) as OTF2's reader sees it (a chunk
  /// of the chunk size), of which [begin, data_end) came from the file (all
  /// of it but in the last chunk; the rest is zeros).
  [[nodiscard]] const uint8_t* begin() const { return buffer_.data(); }
  [[nodiscard]] const uint8_t* data_end() const { return buffer_.data() + loaded_; }
  [[nodiscard]] const uint8_t* chunk_end() const { return buffer_.data() + chunk_size_; }

 private:
  std::string path_;
  int descriptor_ = -1;
  uint64_t chunk_size_;
  std::size_t loaded_ = 0;
  std::vector<uint8_t> buffer_;
};

}  // namespace orrery::analyzer

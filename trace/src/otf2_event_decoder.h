#pragma once
// Orrery's own decoder of an OTF2 event file, straight into a sink
// (builder_sink.h; the benchmark's counting sink). It reads the byte format
// OTF2's documentation and writer define (facts, not code, taken from them):
//
//   chunk    : 0x03, endianness (0x42 little, 0x23 big), first and last event
//              number (8 bytes each); then records; 0x00 ends the chunk, 0x02
//              the file. Chunk k starts at byte k * chunk size.
//   timestamp: 0x05 + 8 bytes; the time of every record after it.
//   record   : type byte, then either one compressed value (the "singleton"
//              records of OTF2 1.1: Enter, Leave, MpiIsendComplete,
//              MpiIrecvRequest, MpiRequestTest, MpiRequestCancelled, OmpFork,
//              OmpTask*) or a length byte (0xff: 8 more bytes of length) and
//              that many bytes of fields. An attribute list (0x06) is such a
//              record before its event.
//   compressed integer: a size byte n (0: zero, 0xff: all bits set,
//              else n little-endian bytes; n <= 4 for 32-bit fields, <= 8
//              for 64-bit ones).
//
// Records it does not handle (attribute lists, other event types, unknown
// types) are skipped, as OTF2 skips events without a callback. Every check
// OTF2's reader makes is made here too. Where one fails or a handled record
// does not look as expected (too short for its fields, a size byte out of
// range, a chunk of the other endianness), decode_events() returns kFallBack
// before the sink sees anything from that record; the caller then discards
// what the sink built and reads the file with libotf2, which gives its own
// answer (or error message) for the same bytes. Two checks are the
// decoder's own, where libotf2 would read memory the file did not fill:
// kCutShort, the file ends inside a record or before the end-of-file mark
// (a truncated file); kCorrupt, a timestamp crosses the end of its chunk.

#include <bit>
#include <cstdint>
#include <cstring>
#include <vector>

#include "otf2_event_file.h"

namespace orrery::analyzer {

enum class Decoded { kAll, kFallBack, kCutShort, kCorrupt };

/// Ids as written: no OTF2 mapping tables in the location's definitions.
struct WrittenIds {
  static uint32_t region(uint32_t id) { return id; }
  static uint32_t comm(uint32_t id) { return id; }
  static uint32_t string(uint32_t id) { return id; }
};

/// The location's OTF2 mapping tables (local definitions), applied as
/// libotf2 applies them: an id the table maps becomes its global id
/// (truncated to the field's 32 bits), any other id stays as written.
struct MappedIds {
  std::vector<uint32_t> regions, comms, strings;  ///< by written id; empty: no table
  [[nodiscard]] uint32_t region(uint32_t id) const { return lookup(regions, id); }
  [[nodiscard]] uint32_t comm(uint32_t id) const { return lookup(comms, id); }
  [[nodiscard]] uint32_t string(uint32_t id) const { return lookup(strings, id); }
  [[nodiscard]] bool empty() const { return regions.empty() && comms.empty() && strings.empty(); }

 private:
  static uint32_t lookup(const std::vector<uint32_t>& table, uint32_t id) {
    return id < table.size() ? table[id] : id;
  }
};

namespace otf2_bytes {

inline constexpr uint8_t kEndOfChunk = 0, kEndOfFile = 2, kChunkHeader = 3, kTimestamp = 5;
inline constexpr uint8_t kLittleEndian = 0x42;
inline constexpr std::size_t kChunkHeaderSize = 18;
enum Record : uint8_t {
  kBufferFlush = 10, kMeasurementOnOff = 11, kEnter = 12, kLeave = 13, kMpiSend = 14, kMpiIsend = 15,
  kMpiIsendComplete = 16, kMpiIrecvRequest = 17, kMpiRecv = 18, kMpiIrecv = 19, kMpiRequestTest = 20,
  kMpiRequestCancelled = 21, kMpiCollectiveBegin = 22, kMpiCollectiveEnd = 23, kOmpFork = 24,
  kOmpTaskCreate = 28, kOmpTaskSwitch = 29, kOmpTaskComplete = 30, kProgramBegin = 83, kProgramEnd = 84,
  kNbcRequest = 85, kNbcComplete = 86,
};

inline uint64_t load64(const uint8_t* at) {
  uint64_t value;
  std::memcpy(&value, at, 8);
  return value;
}

enum class Read : uint8_t { kOk, kNoRoom, kBadSize };

/// Reads a compressed integer of at most `max_bytes` at `at`, within
/// [at, limit]. The buffer's padding makes the 8-byte load safe.
[[gnu::always_inline]] inline Read compressed(const uint8_t*& at, const uint8_t* limit, unsigned max_bytes,
                                              uint64_t& value) {
  if (at >= limit) return Read::kNoRoom;
  const unsigned size = *at;
  if (size == 0xff) {
    value = max_bytes == 4 ? uint64_t{UINT32_MAX} : UINT64_MAX;
    ++at;
    return Read::kOk;
  }
  if (size > max_bytes) return Read::kBadSize;
  if (static_cast<std::size_t>(limit - at) < size + 1) return Read::kNoRoom;
  value = size == 0 ? 0 : load64(at + 1) & (~uint64_t{0} >> (64 - 8 * size));
  at += size + 1;
  return Read::kOk;
}

/// The fields of one length-prefixed record, read in order within its length.
class Fields {
 public:
  Fields(const uint8_t* at, const uint8_t* end) : at_(at), end_(end) {}
  bool u32(uint32_t& out) {
    uint64_t value = 0;
    if (compressed(at_, end_, 4, value) != Read::kOk) return false;
    out = static_cast<uint32_t>(value);
    return true;
  }
  bool u64(uint64_t& out) { return compressed(at_, end_, 8, out) == Read::kOk; }
  bool byte(uint8_t& out) {
    if (at_ >= end_) return false;
    out = *at_++;
    return true;
  }
  bool full64(uint64_t& out) {
    if (end_ - at_ < 8) return false;
    out = load64(at_);
    at_ += 8;
    return true;
  }

 private:
  const uint8_t* at_;
  const uint8_t* end_;
};

}  // namespace otf2_bytes

/// Decodes the events of `file` (positioned before its first chunk) into
/// `sink`, with ids through `ids`; the other outcomes as the header describes.
template <class Sink, class Ids>
Decoded decode_events(EventFile& file, const Ids& ids, Sink& sink) {
  using namespace otf2_bytes;
  if constexpr (std::endian::native != std::endian::little) return Decoded::kFallBack;
  const uint8_t* at = nullptr;
  // Bytes up to `limit` may be read: before the file's end, and (as OTF2's
  // reader demands) at least one byte before the chunk's end.
  const uint8_t* limit = nullptr;
  const uint8_t* data_end = nullptr;
  bool cut_chunk = false;  ///< the file ends inside this chunk
  // Not enough bytes left: the file's end (cut short) or OTF2's chunk limit.
  auto no_room = [&] { return cut_chunk ? Decoded::kCutShort : Decoded::kFallBack; };
  auto start_chunk = [&] {
    if (!file.next_chunk()) return Decoded::kCutShort;
    at = file.begin();
    data_end = file.data_end();
    cut_chunk = data_end < file.chunk_end();
    limit = cut_chunk ? data_end : file.chunk_end() - 1;
    if (data_end - at < static_cast<std::ptrdiff_t>(kChunkHeaderSize)) return Decoded::kCutShort;
    if (at[0] != kChunkHeader || at[1] != kLittleEndian) return Decoded::kFallBack;
    at += kChunkHeaderSize;
    return Decoded::kAll;
  };
  // A length-prefixed record: its fields' end (at: their start); nullptr if it does not fit.
  auto record_end = [&]() -> const uint8_t* {
    if (at >= limit) return nullptr;
    uint64_t length = *at++;
    if (length == 0xff) {
      if (limit - at < 8) return nullptr;
      length = load64(at);
      at += 8;
    }
    if (static_cast<uint64_t>(limit - at) < length) return nullptr;
    return at + length;
  };
  // A singleton record's value; kAll if read.
  auto singleton = [&](unsigned max_bytes, uint64_t& value) {
    const Read read = compressed(at, limit, max_bytes, value);
    return read == Read::kOk ? Decoded::kAll : read == Read::kNoRoom ? no_room() : Decoded::kFallBack;
  };

  if (const Decoded started = start_chunk(); started != Decoded::kAll) return started;
  uint64_t time = 0;
  for (;;) {
    if (at < data_end && *at == kTimestamp) {
      if (data_end - at < 9) return cut_chunk ? Decoded::kCutShort : Decoded::kCorrupt;
      time = load64(at + 1);
      at += 9;
    }
    if (at >= data_end) return no_room();
    const uint8_t type = *at++;
    uint64_t value = 0;
    Decoded read = Decoded::kAll;
    switch (type) {
      case kEnter:
        if ((read = singleton(4, value)) != Decoded::kAll) return read;
        sink.enter(time, ids.region(static_cast<uint32_t>(value)));
        continue;
      case kLeave:
        if ((read = singleton(4, value)) != Decoded::kAll) return read;
        sink.leave(time, ids.region(static_cast<uint32_t>(value)));
        continue;
      case kMpiIsendComplete:
        if ((read = singleton(8, value)) != Decoded::kAll) return read;
        sink.isend_complete(time, value);
        continue;
      case kMpiIrecvRequest:
        if ((read = singleton(8, value)) != Decoded::kAll) return read;
        sink.irecv_request(time, value);
        continue;
      case kMpiRequestCancelled:
        if ((read = singleton(8, value)) != Decoded::kAll) return read;
        sink.request_cancelled(time, value);
        continue;
      case kMpiRequestTest: case kOmpFork: case kOmpTaskCreate: case kOmpTaskSwitch: case kOmpTaskComplete:
        if ((read = singleton(8, value)) != Decoded::kAll) return read;
        continue;
      case kEndOfChunk:
        if ((read = start_chunk()) != Decoded::kAll) return read;
        continue;
      case kEndOfFile:
        return Decoded::kAll;
      default:
        break;
    }
    const uint8_t* end = record_end();
    if (end == nullptr) return no_room();
    Fields fields(at, end);
    at = end;
    uint32_t peer = 0, comm = 0, tag = 0, root = 0;
    uint64_t bytes = 0, request = 0, received = 0;
    uint8_t op = 0;
    switch (type) {
      case kMpiSend: case kMpiRecv:
        if (!(fields.u32(peer) && fields.u32(comm) && fields.u32(tag) && fields.u64(bytes))) {
          return Decoded::kFallBack;
        }
        if (type == kMpiSend) {
          sink.send(time, peer, ids.comm(comm), tag, bytes);
        } else {
          sink.recv(time, peer, ids.comm(comm), tag, bytes);
        }
        break;
      case kMpiIsend: case kMpiIrecv:
        if (!(fields.u32(peer) && fields.u32(comm) && fields.u32(tag) && fields.u64(bytes) &&
              fields.u64(request))) {
          return Decoded::kFallBack;
        }
        if (type == kMpiIsend) {
          sink.isend(time, peer, ids.comm(comm), tag, bytes, request);
        } else {
          sink.irecv(time, peer, ids.comm(comm), tag, bytes, request);
        }
        break;
      case kMpiCollectiveBegin:
        sink.collective_begin(time);
        break;
      case kMpiCollectiveEnd: case kNbcComplete:
        if (!(fields.byte(op) && fields.u32(comm) && fields.u32(root) && fields.u64(bytes) &&
              fields.u64(received))) {
          return Decoded::kFallBack;
        }
        if (type == kMpiCollectiveEnd) {
          sink.collective_end(time, op, ids.comm(comm), root, bytes, received);
        } else {
          if (!fields.u64(request)) return Decoded::kFallBack;
          sink.nbc_complete(time, op, ids.comm(comm), root, bytes, received, request);
        }
        break;
      case kNbcRequest:
        if (!fields.u64(request)) return Decoded::kFallBack;
        sink.nbc_request(time, request);
        break;
      case kProgramBegin: {
        uint32_t name = 0, arguments = 0, argument = 0;
        if (!(fields.u32(name) && fields.u32(arguments))) return Decoded::kFallBack;
        for (uint32_t i = 0; i < arguments; ++i) {
          if (!fields.u32(argument)) return Decoded::kFallBack;
        }
        sink.program_begin(time, ids.string(name));
        break;
      }
      case kProgramEnd:
        if (!fields.u64(bytes)) return Decoded::kFallBack;  // the exit status, unused
        sink.program_end(time);
        break;
      case kBufferFlush:
        if (!fields.full64(bytes)) return Decoded::kFallBack;
        sink.buffer_flush(time, bytes);
        break;
      case kMeasurementOnOff:
        if (!fields.byte(op)) return Decoded::kFallBack;
        sink.measurement(time, op);
        break;
      default:  // an attribute list, an event type not handled here, an unknown type
        break;
    }
  }
}

}  // namespace orrery::analyzer

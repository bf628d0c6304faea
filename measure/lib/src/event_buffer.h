#pragma once
// A rank's compact event buffer: variable-length records appended without
// locks by the recording thread. When it is full it is appended to a spill file
// and the flush itself is recorded (BufferFlush + an ORRERY_FLUSH region), so no
// event is ever dropped. At finalize the spill file and the buffer are read back
// in order.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>

#include "sampler.h"

namespace orrery::measure {

/// Kinds of records, one per OTF2 event the library writes.
enum class RecordKind : uint8_t {
  kEnter = 1, kLeave, kMpiSend, kMpiRecv, kMpiIsend, kMpiIsendComplete, kMpiIrecvRequest,
  kMpiIrecv, kMpiRequestTest, kMpiRequestCancelled, kCollBegin, kCollEnd, kNbcRequest,
  kNbcComplete, kBufferFlush, kMetric,
  kThreadFork,  ///< OpenMP fork of a team of `peer` requested threads (ompt_tool.cpp)
  kThreadJoin,  ///< OpenMP join of that team
  kEnterTeam,   ///< Enter of an OpenMP implicit task, with its team's process-unique id in `request`
};

/// One decoded record; only the fields of its kind are meaningful.
struct Record {
  RecordKind kind = RecordKind::kEnter;
  uint64_t time = 0;
  uint32_t region = 0;    ///< Enter/Leave
  uint32_t peer = 0;      ///< rank in the communicator
  uint32_t comm = 0;      ///< local communicator id
  uint32_t tag = 0;
  uint32_t root = 0;
  uint8_t op = 0;         ///< OTF2 collective op
  uint64_t bytes = 0;     ///< message bytes, or bytes sent by a collective
  uint64_t bytes_received = 0;
  uint64_t request = 0;
  uint64_t stop_time = 0;  ///< BufferFlush
  /// Metric: the ResourceSample fields in order. Left uninitialised by
  /// `Record r;` (only Metric records set them): no extra stores on the paths
  /// that build the other kinds.
  uint64_t metrics[kResourceMetrics];
};

/// Append-only event storage of one rank (or thread) with spill-to-file
/// flushing; cache-line aligned, so that the buffers of two threads never
/// share a line.
class alignas(64) EventBuffer {
 public:
  static constexpr std::size_t kMaxRecord = 64;

  /// `flush_region` is the region id entered/left around each flush; an empty
  /// `spill_path` spills to a nameless file in TMPDIR (before MPI_Init).
  EventBuffer(std::size_t bytes, std::string spill_path, uint32_t flush_region);
  ~EventBuffer();
  EventBuffer(const EventBuffer&) = delete;
  EventBuffer& operator=(const EventBuffer&) = delete;

  /// Hot path: Enter/Leave of a region.
  void enter(uint64_t time, uint32_t region) noexcept { region_record(RecordKind::kEnter, time, region); }
  void leave(uint64_t time, uint32_t region) noexcept { region_record(RecordKind::kLeave, time, region); }
  /// Hot path: MpiSend/MpiRecv (same bytes as encode_record writes).
  __attribute__((always_inline)) void message(RecordKind kind, uint64_t time, uint32_t peer, uint32_t comm,
                                             uint32_t tag, uint64_t bytes) noexcept {
    pos_ = put_message(pos_, kind, time, peer, comm, tag, bytes);
    ++records_;
    if (time >= next_sample_) [[unlikely]] sample(time);
    if (static_cast<std::size_t>(end_ - pos_) < kReserve) flush();
  }
  /// Hot path of a blocking send: its Enter and its MpiSend at the same time,
  /// one room check for both (the same bytes as enter() then message()).
  __attribute__((always_inline)) void enter_send(uint64_t time, uint32_t region, uint32_t peer, uint32_t comm,
                                                uint32_t tag, uint64_t bytes) noexcept {
    uint8_t* p = put_region(pos_, RecordKind::kEnter, time, region);
    pos_ = put_message(p, RecordKind::kMpiSend, time, peer, comm, tag, bytes);
    records_ += 2;
    if (time >= next_sample_) [[unlikely]] sample(time);
    if (static_cast<std::size_t>(end_ - pos_) < kReserve) flush();
  }
  /// Hot path of a blocking receive: its MpiRecv and its Leave at the same
  /// time (the same bytes as message() then leave()).
  __attribute__((always_inline)) void recv_leave(uint64_t time, uint32_t region, uint32_t peer, uint32_t comm,
                                                uint32_t tag, uint64_t bytes) noexcept {
    uint8_t* p = put_message(pos_, RecordKind::kMpiRecv, time, peer, comm, tag, bytes);
    pos_ = put_region(p, RecordKind::kLeave, time, region);
    records_ += 2;
    if (time >= next_sample_) [[unlikely]] sample(time);
    if (static_cast<std::size_t>(end_ - pos_) < kReserve) flush();
  }
  /// Any other record.
  void append(const Record& record) noexcept;

  /// Calls `visit` for every record in order (spilled ones first). Returns false
  /// if the spill file could not be read back.
  bool for_each(const std::function<void(const Record&)>& visit) const;

  /// Resource sampling (sampler.h): takes a sample at `time` now and then
  /// one with the first event at least the schedule's interval later.
  void start_sampling(const SamplingSchedule& schedule, uint64_t time) noexcept;
  /// One sample at `time` now (if sampling was started); not after stop_sampling.
  void sample_now(uint64_t time) noexcept;
  /// No more samples.
  void stop_sampling() noexcept { next_sample_ = SamplingSchedule::kNever; }
  [[nodiscard]] uint64_t samples() const noexcept { return samples_; }

  [[nodiscard]] uint64_t records() const noexcept { return records_; }
  [[nodiscard]] uint64_t flushes() const noexcept { return flushes_; }
  [[nodiscard]] uint64_t write_errors() const noexcept { return write_errors_; }
  [[nodiscard]] std::size_t capacity() const noexcept { return static_cast<std::size_t>(end_ - begin_); }
  /// Removes the spill file.
  void discard_spill() noexcept;
  /// Makes the pages of the free part resident now, up to `max_bytes` of
  /// them (MPI_Init), so that recording takes no first-touch page fault
  /// there (about 1.3 us each in a VM, i.e. ~15 ns per MPI call when spread
  /// over the calls). Contents are unchanged; only memory the buffer owns
  /// anyway is touched.
  void prefault(std::size_t max_bytes) noexcept;

 private:
  // The flush comes after the record that filled the buffer, so that records
  // stay in time order (a record's time is taken before it is appended).
  __attribute__((always_inline)) void region_record(RecordKind kind, uint64_t time, uint32_t region) noexcept {
    pos_ = put_region(pos_, kind, time, region);
    ++records_;
    if (time >= next_sample_) [[unlikely]] sample(time);
    if (static_cast<std::size_t>(end_ - pos_) < kReserve) flush();
  }
  // The fixed layouts encode_record writes: kind, time, then the fields.
  static uint8_t* put_region(uint8_t* p, RecordKind kind, uint64_t time, uint32_t region) noexcept {
    *p = static_cast<uint8_t>(kind);
    std::memcpy(p + 1, &time, sizeof time);
    std::memcpy(p + 9, &region, sizeof region);
    return p + 13;
  }
  static uint8_t* put_message(uint8_t* p, RecordKind kind, uint64_t time, uint32_t peer, uint32_t comm,
                              uint32_t tag, uint64_t bytes) noexcept {
    *p = static_cast<uint8_t>(kind);
    std::memcpy(p + 1, &time, sizeof time);
    std::memcpy(p + 9, &peer, sizeof peer);
    std::memcpy(p + 13, &comm, sizeof comm);
    std::memcpy(p + 17, &tag, sizeof tag);
    std::memcpy(p + 21, &bytes, sizeof bytes);
    return p + 29;
  }
  /// Room kept free: one more record (or the hot paths' two, together less
  /// than kMaxRecord), a resource sample after it, and a flush's own three.
  static constexpr std::size_t kReserve = 4 * kMaxRecord;
  __attribute__((noinline, cold)) void flush() noexcept;
  /// Appends a Metric record at `time` and schedules the next one (no room check).
  __attribute__((noinline, cold)) void sample(uint64_t time) noexcept;

  uint8_t* begin_ = nullptr;
  uint8_t* pos_ = nullptr;
  uint8_t* end_ = nullptr;
  /// Event time at which the next resource sample is due (kNever: off). Next
  /// to pos_/end_: the hot path's one extra compare reads the same cache line.
  uint64_t next_sample_ = SamplingSchedule::kNever;
  SamplingSchedule schedule_;
  uint64_t samples_ = 0;
  std::string spill_path_;
  int spill_fd_ = -1;
  uint32_t flush_region_;
  uint64_t records_ = 0;
  uint64_t flushes_ = 0;
  uint64_t write_errors_ = 0;
};

/// Encodes one record at `out` (at least kMaxRecord bytes); returns its size.
std::size_t encode_record(const Record& record, uint8_t* out) noexcept;
/// Decodes one record from [in, end); returns its size or 0 if truncated/corrupt.
std::size_t decode_record(const uint8_t* in, const uint8_t* end, Record& record) noexcept;

}  // namespace orrery::measure

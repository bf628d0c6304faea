#include "event_buffer.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdlib>
#include <vector>

#include "buffer_memory.h"
#include "clock.h"

namespace orrery::measure {
namespace {

template <typename T>
uint8_t* put(uint8_t* out, T value) noexcept {
  std::memcpy(out, &value, sizeof value);
  return out + sizeof value;
}

template <typename T>
const uint8_t* get(const uint8_t* in, T& value) noexcept {
  std::memcpy(&value, in, sizeof value);
  return in + sizeof value;
}

/// The one definition of each kind's payload after the 9-byte header (kind +
/// time): its fields in order. `encode_record` writes them, `decode_record`
/// reads them and `payload_size` adds up their sizes (the hot paths in
/// event_buffer.h write the same bytes; event_buffer_test checks that).
/// Returns false for a byte that is no kind.
template <typename R, typename Field>
bool for_each_field(RecordKind kind, R& r, Field&& field) noexcept {
  switch (kind) {
    case RecordKind::kEnter:
    case RecordKind::kLeave: field(r.region); return true;
    case RecordKind::kMpiSend:
    case RecordKind::kMpiRecv:
    case RecordKind::kMpiIsend:
    case RecordKind::kMpiIrecv:
      field(r.peer);
      field(r.comm);
      field(r.tag);
      field(r.bytes);
      if (kind == RecordKind::kMpiIsend || kind == RecordKind::kMpiIrecv) field(r.request);
      return true;
    case RecordKind::kMpiIsendComplete:
    case RecordKind::kMpiIrecvRequest:
    case RecordKind::kMpiRequestTest:
    case RecordKind::kMpiRequestCancelled:
    case RecordKind::kNbcRequest: field(r.request); return true;
    case RecordKind::kBufferFlush: field(r.stop_time); return true;
    case RecordKind::kCollBegin: return true;
    case RecordKind::kCollEnd:
    case RecordKind::kNbcComplete:
      field(r.op);
      field(r.comm);
      field(r.root);
      field(r.bytes);
      field(r.bytes_received);
      if (kind == RecordKind::kNbcComplete) field(r.request);
      return true;
    case RecordKind::kMetric:
      for (auto& value : r.metrics) field(value);
      return true;
    case RecordKind::kThreadFork: field(r.peer); return true;
    case RecordKind::kThreadJoin: return true;
    case RecordKind::kEnterTeam:
      field(r.region);
      field(r.request);
      return true;
  }
  return false;
}

/// Payload bytes of a kind; SIZE_MAX for a byte that is no kind.
std::size_t payload_size(RecordKind kind) noexcept {
  static const Record kShape{};
  std::size_t size = 0;
  const bool known = for_each_field(kind, kShape, [&](const auto& value) { size += sizeof value; });
  return known ? size : SIZE_MAX;
}

bool write_all(int fd, const uint8_t* data, std::size_t size) noexcept {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n <= 0) return false;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace

std::size_t encode_record(const Record& r, uint8_t* out) noexcept {
  uint8_t* p = out;
  *p++ = static_cast<uint8_t>(r.kind);
  p = put(p, r.time);
  for_each_field(r.kind, r, [&](const auto& value) { p = put(p, value); });
  return static_cast<std::size_t>(p - out);
}

std::size_t decode_record(const uint8_t* in, const uint8_t* end, Record& r) noexcept {
  if (end - in < 9) return 0;
  r = Record{};
  r.kind = static_cast<RecordKind>(in[0]);
  const std::size_t payload = payload_size(r.kind);
  if (payload == SIZE_MAX || static_cast<std::size_t>(end - in) < 9 + payload) return 0;
  const uint8_t* p = get(in + 1, r.time);
  for_each_field(r.kind, r, [&](auto& value) { p = get(p, value); });
  return 9 + payload;
}

namespace {

int open_spill(const std::string& path) noexcept {
  return ::open(path.c_str(), O_CREAT | O_TRUNC | O_RDWR | O_CLOEXEC, 0600);
}

// Before MPI_Init the experiment directory is not known: a file in TMPDIR that
// has no name, so nothing is left behind whatever way the process ends.
int open_anonymous_spill() noexcept {
  const char* tmp = std::getenv("TMPDIR");
  const std::string dir = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
  int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
  std::string name = dir + "/.orrery-buffer-XXXXXX";
  fd = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd >= 0) ::unlink(name.c_str());
  return fd;
}

}  // namespace

EventBuffer::EventBuffer(std::size_t bytes, std::string spill_path, uint32_t flush_region)
    : spill_path_(std::move(spill_path)), flush_region_(flush_region) {
  // Room for at least a flush's own records plus one more of any kind.
  if (bytes < 8 * kMaxRecord) bytes = 8 * kMaxRecord;
  begin_ = acquire_buffer_memory(bytes);
  if (begin_ == nullptr) {
    bytes = 8 * kMaxRecord;
    begin_ = acquire_buffer_memory(bytes);
  }
  pos_ = begin_;
  end_ = begin_ + bytes;
}

EventBuffer::~EventBuffer() {
  if (spill_fd_ >= 0) ::close(spill_fd_);
  release_buffer_memory(begin_, static_cast<std::size_t>(end_ - begin_));
}

void EventBuffer::append(const Record& record) noexcept {
  pos_ += encode_record(record, pos_);
  ++records_;
  if (static_cast<std::size_t>(end_ - pos_) < kReserve) flush();
}

void EventBuffer::sample(uint64_t time) noexcept {
  Record metric;
  metric.kind = RecordKind::kMetric;
  metric.time = time;
  ResourceSample values;
  read_resources(values);
  metric.metrics[0] = values.rss_bytes;
  metric.metrics[1] = values.cpu_ns;
  metric.metrics[2] = values.minor_faults;
  metric.metrics[3] = values.major_faults;
  metric.metrics[4] = values.voluntary_switches;
  metric.metrics[5] = values.involuntary_switches;
  pos_ += encode_record(metric, pos_);
  ++records_;
  ++samples_;
  next_sample_ = schedule_.next_after(time, ClockPair::sample());
}

void EventBuffer::start_sampling(const SamplingSchedule& schedule, uint64_t time) noexcept {
  schedule_ = schedule;
  if (!schedule_.enabled()) return;
  sample(time);
  if (static_cast<std::size_t>(end_ - pos_) < kReserve) flush();
}

void EventBuffer::sample_now(uint64_t time) noexcept {
  if (!schedule_.enabled() || next_sample_ == SamplingSchedule::kNever) return;
  sample(time);
  if (static_cast<std::size_t>(end_ - pos_) < kReserve) flush();
}

void EventBuffer::prefault(std::size_t max_bytes) noexcept {
  const long page_size = ::sysconf(_SC_PAGESIZE);
  const auto page = static_cast<uintptr_t>(page_size > 0 ? page_size : 4096);
  // Whole pages strictly inside the free part (the partial ones are being used).
  const uintptr_t first = (reinterpret_cast<uintptr_t>(pos_) + page - 1) & ~(page - 1);
  const auto free_bytes = static_cast<uintptr_t>(end_ - pos_);
  const uintptr_t stop = reinterpret_cast<uintptr_t>(pos_) + (free_bytes < max_bytes ? free_bytes : max_bytes);
  const uintptr_t last = stop & ~(page - 1);
#if defined(MADV_POPULATE_WRITE)
  if (last > first && ::madvise(reinterpret_cast<void*>(first), last - first, MADV_POPULATE_WRITE) == 0) return;
#endif
  // Older kernels: write one byte per page (of the free part: nothing is overwritten).
  for (uintptr_t p = first; p < last; p += page) *reinterpret_cast<volatile uint8_t*>(p) = 0;
}

void EventBuffer::flush() noexcept {
  const uint64_t start = now();
  if (spill_fd_ < 0) spill_fd_ = spill_path_.empty() ? open_anonymous_spill() : open_spill(spill_path_);
  if (spill_fd_ < 0 || !write_all(spill_fd_, begin_, static_cast<std::size_t>(pos_ - begin_))) {
    ++write_errors_;
  }
  pos_ = begin_;
  ++flushes_;
  const uint64_t stop = now();
  Record flush_event;
  flush_event.kind = RecordKind::kBufferFlush;
  flush_event.time = start;
  flush_event.stop_time = stop;
  pos_ += encode_record(flush_event, pos_);
  Record region;
  region.kind = RecordKind::kEnter;
  region.time = start;
  region.region = flush_region_;
  pos_ += encode_record(region, pos_);
  region.kind = RecordKind::kLeave;
  region.time = stop;
  pos_ += encode_record(region, pos_);
  records_ += 3;
}

bool EventBuffer::for_each(const std::function<void(const Record&)>& visit) const {
  Record record;
  bool ok = true;
  if (spill_fd_ >= 0) {
    std::vector<uint8_t> chunk(1 << 20);
    std::size_t carried = 0;
    off_t offset = 0;
    for (;;) {
      const ssize_t n = ::pread(spill_fd_, chunk.data() + carried, chunk.size() - carried, offset);
      if (n < 0) {
        ok = false;
        break;
      }
      offset += n;
      const uint8_t* p = chunk.data();
      const uint8_t* end = chunk.data() + carried + static_cast<std::size_t>(n);
      while (std::size_t used = decode_record(p, end, record)) {
        visit(record);
        p += used;
      }
      carried = static_cast<std::size_t>(end - p);
      std::memmove(chunk.data(), p, carried);
      if (n == 0) {
        ok = ok && carried == 0;
        break;
      }
    }
  }
  const uint8_t* p = begin_;
  while (std::size_t used = decode_record(p, pos_, record)) {
    visit(record);
    p += used;
  }
  return ok && p == pos_;
}

void EventBuffer::discard_spill() noexcept {
  if (spill_fd_ >= 0) {
    ::close(spill_fd_);
    spill_fd_ = -1;
    if (!spill_path_.empty()) ::unlink(spill_path_.c_str());
  }
}

}  // namespace orrery::measure

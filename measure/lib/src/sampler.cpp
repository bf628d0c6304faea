#include "sampler.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>

namespace orrery::measure {
namespace {

int g_statm_fd = -1;
long g_page_size = 0;

uint64_t timeval_ns(const timeval& tv) noexcept {
  return static_cast<uint64_t>(tv.tv_sec) * 1000000000ULL + static_cast<uint64_t>(tv.tv_usec) * 1000ULL;
}

// Resident pages: the second field of /proc/self/statm ("size resident ...").
uint64_t resident_bytes() noexcept {
  if (g_statm_fd < 0) {
    g_statm_fd = ::open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    if (g_statm_fd < 0) return 0;
    g_page_size = ::sysconf(_SC_PAGESIZE);
  }
  char text[128];
  const ssize_t n = ::pread(g_statm_fd, text, sizeof text - 1, 0);
  if (n <= 0 || g_page_size <= 0) return 0;
  text[n] = '\0';
  char* end = nullptr;
  (void)std::strtoull(text, &end, 10);  // size
  if (end == text) return 0;
  const char* resident = end;
  const unsigned long long pages = std::strtoull(resident, &end, 10);
  if (end == resident) return 0;
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(g_page_size);
}

}  // namespace

void read_resources(ResourceSample& sample) noexcept {
  sample = ResourceSample{};
  sample.rss_bytes = resident_bytes();
  rusage usage{};
  if (::getrusage(RUSAGE_SELF, &usage) == 0) {
    sample.cpu_ns = timeval_ns(usage.ru_utime) + timeval_ns(usage.ru_stime);
    sample.minor_faults = static_cast<uint64_t>(usage.ru_minflt);
    sample.major_faults = static_cast<uint64_t>(usage.ru_majflt);
    sample.voluntary_switches = static_cast<uint64_t>(usage.ru_nvcsw);
    sample.involuntary_switches = static_cast<uint64_t>(usage.ru_nivcsw);
  }
}

void close_resource_files() noexcept {
  if (g_statm_fd >= 0) ::close(g_statm_fd);
  g_statm_fd = -1;
}

double SamplingSchedule::ticks_per_ns(ClockPair clocks) const noexcept {
  if (!tsc_) return 1.0;
  // At least 1 ms between the pairs for a usable rate; before that assume
  // 1 tick/ns (a TSC runs at ~1-5 GHz: the first interval is then at most
  // ~5x too short, and the next sample corrects it).
  if (clocks.ns <= origin_.ns + 1000000ULL || clocks.ticks <= origin_.ticks) return 1.0;
  return static_cast<double>(clocks.ticks - origin_.ticks) / static_cast<double>(clocks.ns - origin_.ns);
}

uint64_t SamplingSchedule::next_after(uint64_t ticks, ClockPair clocks) const noexcept {
  if (interval_ns_ == 0) return kNever;
  const double step = static_cast<double>(interval_ns_) * ticks_per_ns(clocks);
  if (step >= static_cast<double>(kNever - ticks)) return kNever;
  const auto delta = static_cast<uint64_t>(step);
  return ticks + (delta > 0 ? delta : 1);
}

}  // namespace orrery::measure

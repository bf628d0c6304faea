// Resource sampling: the schedule (when the next sample is due), the
// resource reading, and the Metric records the event buffer adds.
#include "sampler.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "event_buffer.h"

namespace orrery::measure {
namespace {

TEST(SamplingSchedule, DisabledIsNever) {
  const SamplingSchedule off;
  EXPECT_FALSE(off.enabled());
  EXPECT_EQ(off.next_after(5, ClockPair{5, 5}), SamplingSchedule::kNever);
  const SamplingSchedule zero(0, ClockPair{0, 0}, false);
  EXPECT_EQ(zero.next_after(5, ClockPair{5, 5}), SamplingSchedule::kNever);
}

TEST(SamplingSchedule, NanosecondClockAddsTheInterval) {
  const SamplingSchedule s(10, ClockPair{0, 0}, false);
  EXPECT_TRUE(s.enabled());
  EXPECT_EQ(s.next_after(1000, ClockPair{2000, 2000}), 1000 + 10000000ULL);  // from the sample's time
}

TEST(SamplingSchedule, TscRateIsEstimatedFromTheOrigin) {
  // 3 ticks per ns between origin and the sample: 1 ms = 3e6 ticks.
  const SamplingSchedule s(1, ClockPair{1000, 500}, true);
  const ClockPair later{1000 + 3 * 50000000ULL, 500 + 50000000ULL};
  EXPECT_DOUBLE_EQ(s.ticks_per_ns(later), 3.0);
  EXPECT_EQ(s.next_after(later.ticks, later), later.ticks + 3000000ULL);
  // Less than 1 ms after the origin: 1 tick per ns assumed.
  const ClockPair soon{1500, 500 + 1000};
  EXPECT_DOUBLE_EQ(s.ticks_per_ns(soon), 1.0);
  EXPECT_EQ(s.next_after(1500, soon), 1500 + 1000000ULL);
}

TEST(SamplingSchedule, NeverOverflows) {
  const SamplingSchedule s(1000, ClockPair{0, 0}, false);
  EXPECT_EQ(s.next_after(SamplingSchedule::kNever - 5, ClockPair{0, 0}), SamplingSchedule::kNever);
}

TEST(ResourceSample, ReadsPlausibleValues) {
  ResourceSample first;
  read_resources(first);
  EXPECT_GT(first.rss_bytes, 0u);
  EXPECT_GT(first.minor_faults, 0u);
  // Burn CPU and touch new pages: the counters grow, never shrink.
  std::vector<char> pages(8u << 20);
  for (std::size_t i = 0; i < pages.size(); i += 4096) pages[i] = static_cast<char>(i);
  volatile uint64_t x = 0;
  for (uint64_t i = 0; i < 20000000ULL; ++i) x = x + i;
  ResourceSample second;
  read_resources(second);
  EXPECT_GT(second.cpu_ns, first.cpu_ns);
  EXPECT_GT(second.minor_faults, first.minor_faults);
  EXPECT_GE(second.major_faults, first.major_faults);
  EXPECT_GE(second.voluntary_switches, first.voluntary_switches);
  EXPECT_GE(second.involuntary_switches, first.involuntary_switches);
  EXPECT_GE(second.rss_bytes, first.rss_bytes + (4u << 20));
  close_resource_files();
  ResourceSample again;
  read_resources(again);  // reopens
  EXPECT_GT(again.rss_bytes, 0u);
  close_resource_files();
}

std::vector<Record> all_records(const EventBuffer& buffer) {
  std::vector<Record> out;
  EXPECT_TRUE(buffer.for_each([&](const Record& r) { out.push_back(r); }));
  return out;
}

TEST(EventBufferSampling, OffTakesNoSample) {
  EventBuffer buffer(1 << 16, "", 0);
  for (uint64_t t = 1; t < 1000; ++t) buffer.enter(t * 100000000ULL, 1);
  buffer.sample_now(2000);
  EXPECT_EQ(buffer.samples(), 0u);
  for (const Record& r : all_records(buffer)) EXPECT_NE(r.kind, RecordKind::kMetric);
}

TEST(EventBufferSampling, SamplesAtStartWithEventsAfterTheIntervalAndAtTheEnd) {
  EventBuffer buffer(1 << 16, "", 0);
  constexpr uint64_t kMs = 1000000ULL;  // nanosecond clock: 1 ms
  buffer.start_sampling(SamplingSchedule(2, ClockPair{0, 0}, false), 10 * kMs);
  EXPECT_EQ(buffer.samples(), 1u);
  buffer.enter(10 * kMs + 1, 1);                  // too early
  buffer.leave(11 * kMs, 1);                      // too early
  buffer.message(RecordKind::kMpiSend, 12 * kMs, 1, 0, 0, 8);  // due: 2 ms after 10 ms
  buffer.enter_send(13 * kMs, 2, 1, 0, 0, 8);     // too early (next at 14 ms)
  buffer.recv_leave(15 * kMs, 2, 1, 0, 0, 8);     // due
  buffer.enter(50 * kMs, 3);                       // due (long quiet stretch: one sample, not many)
  buffer.sample_now(51 * kMs);                     // the final one
  buffer.stop_sampling();
  buffer.leave(90 * kMs, 3);
  buffer.sample_now(91 * kMs);                     // after stop: none
  EXPECT_EQ(buffer.samples(), 5u);
  std::vector<uint64_t> times;
  uint64_t last = 0;
  for (const Record& r : all_records(buffer)) {
    EXPECT_GE(r.time, last) << "records out of time order";
    last = r.time;
    if (r.kind != RecordKind::kMetric) continue;
    times.push_back(r.time);
    EXPECT_GT(r.metrics[0], 0u);  // resident set size
    EXPECT_GT(r.metrics[2], 0u);  // minor faults
  }
  EXPECT_EQ(times, (std::vector<uint64_t>{10 * kMs, 12 * kMs, 15 * kMs, 50 * kMs, 51 * kMs}));
  close_resource_files();
}

TEST(EventBufferSampling, TinyBufferWithSamplesLosesNothing) {
  EventBuffer buffer(512, "", 7);
  buffer.start_sampling(SamplingSchedule(1, ClockPair{0, 0}, false), 0);
  constexpr uint64_t kEvents = 3000;
  for (uint64_t i = 1; i <= kEvents; ++i) {
    // Every event is 1 ms after the previous one: each takes a sample too.
    buffer.enter_send(i * 1000000ULL, 1, 2, 0, 0, 16);
  }
  EXPECT_GT(buffer.flushes(), 0u);
  EXPECT_EQ(buffer.samples(), kEvents + 1);
  uint64_t metrics = 0;
  uint64_t enters = 0;
  for (const Record& r : all_records(buffer)) {  // (flush records carry real clock times)
    metrics += r.kind == RecordKind::kMetric ? 1 : 0;
    enters += r.kind == RecordKind::kEnter && r.region == 1 ? 1 : 0;
  }
  EXPECT_EQ(metrics, kEvents + 1);
  EXPECT_EQ(enters, kEvents);
  buffer.discard_spill();
  close_resource_files();
}

}  // namespace
}  // namespace orrery::measure

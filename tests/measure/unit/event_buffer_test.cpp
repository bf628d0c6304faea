#include "event_buffer.h"

#include "clock.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

#include <string>
#include <vector>

namespace orrery::measure {
namespace {

std::string spill_path() { return "/tmp/orrery-unit-buffer-" + std::to_string(::getpid()); }

Record message(uint64_t time, uint32_t peer) {
  Record r;
  r.kind = RecordKind::kMpiIsend;
  r.time = time;
  r.peer = peer;
  r.comm = 3;
  r.tag = 77;
  r.bytes = 1ULL << 40;
  r.request = 9;
  return r;
}

TEST(EventBuffer, EveryKindRoundTrips) {
  std::vector<Record> records;
  for (uint8_t k = 1; k <= static_cast<uint8_t>(RecordKind::kMetric); ++k) {
    Record r = message(100 + k, k);
    r.kind = static_cast<RecordKind>(k);
    r.region = 1000u + k;
    r.op = 11;
    r.root = 2;
    r.bytes_received = 5;
    r.stop_time = 500;
    records.push_back(r);
  }
  for (const Record& r : records) {
    uint8_t bytes[EventBuffer::kMaxRecord];
    const std::size_t size = encode_record(r, bytes);
    ASSERT_LE(size, EventBuffer::kMaxRecord);
    Record back;
    ASSERT_EQ(decode_record(bytes, bytes + size, back), size);
    EXPECT_EQ(back.kind, r.kind);
    EXPECT_EQ(back.time, r.time);
    // A truncated record is never decoded.
    EXPECT_EQ(decode_record(bytes, bytes + size - 1, back), 0u);
  }
}

TEST(EventBuffer, TeamEnterKeepsRegionAndTeam) {
  Record r;
  r.kind = RecordKind::kEnterTeam;
  r.time = 77;
  r.region = 0x40000003u;
  r.request = (uint64_t{1} << 40) - 5;  // the largest team ids the tool hands out
  uint8_t bytes[EventBuffer::kMaxRecord];
  const std::size_t size = encode_record(r, bytes);
  EXPECT_EQ(size, 21u);  // kind, time, region, team
  Record back;
  ASSERT_EQ(decode_record(bytes, bytes + size, back), size);
  EXPECT_EQ(back.kind, RecordKind::kEnterTeam);
  EXPECT_EQ(back.time, 77u);
  EXPECT_EQ(back.region, r.region);
  EXPECT_EQ(back.request, r.request);
}

TEST(EventBuffer, EnterLeaveIsThirteenBytes) {
  Record r;
  r.kind = RecordKind::kEnter;
  uint8_t bytes[EventBuffer::kMaxRecord];
  EXPECT_EQ(encode_record(r, bytes), 13u);
}

TEST(EventBuffer, HotPathMessageEqualsGenericEncoding) {
  EventBuffer buffer(4096, spill_path(), 1);
  buffer.message(RecordKind::kMpiSend, 1234, 5, 6, 7, (1ULL << 33) + 1);
  buffer.message(RecordKind::kMpiRecv, 1240, 8, 9, 10, 11);
  std::vector<Record> seen;
  ASSERT_TRUE(buffer.for_each([&](const Record& r) { seen.push_back(r); }));
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].kind, RecordKind::kMpiSend);
  EXPECT_EQ(seen[0].time, 1234u);
  EXPECT_EQ(seen[0].peer, 5u);
  EXPECT_EQ(seen[0].comm, 6u);
  EXPECT_EQ(seen[0].tag, 7u);
  EXPECT_EQ(seen[0].bytes, (1ULL << 33) + 1);
  EXPECT_EQ(seen[1].kind, RecordKind::kMpiRecv);
  EXPECT_EQ(seen[1].peer, 8u);
  EXPECT_EQ(seen[1].bytes, 11u);
  uint8_t generic[EventBuffer::kMaxRecord];
  EXPECT_EQ(encode_record(seen[0], generic), 29u);  // the hot path writes exactly this many bytes
  buffer.discard_spill();
}

// The wrappers' fast paths write two records at once: the same records, in
// the same order, as the separate hot-path calls.
TEST(EventBuffer, PairedHotPathRecordsEqualSeparateOnes) {
  EventBuffer paired(4096, spill_path(), 1);
  EventBuffer separate(4096, spill_path() + "-b", 1);
  paired.enter_send(1000, 17, 3, 4, 5, (1ULL << 35) + 8);
  paired.recv_leave(2000, 18, 6, 7, 8, 9);
  separate.enter(1000, 17);
  separate.message(RecordKind::kMpiSend, 1000, 3, 4, 5, (1ULL << 35) + 8);
  separate.message(RecordKind::kMpiRecv, 2000, 6, 7, 8, 9);
  separate.leave(2000, 18);
  EXPECT_EQ(paired.records(), 4u);
  std::vector<Record> a;
  std::vector<Record> b;
  ASSERT_TRUE(paired.for_each([&](const Record& r) { a.push_back(r); }));
  ASSERT_TRUE(separate.for_each([&](const Record& r) { b.push_back(r); }));
  ASSERT_EQ(a.size(), 4u);
  ASSERT_EQ(b.size(), 4u);
  const RecordKind kinds[] = {RecordKind::kEnter, RecordKind::kMpiSend, RecordKind::kMpiRecv, RecordKind::kLeave};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(a[i].kind, kinds[i]);
    EXPECT_EQ(a[i].kind, b[i].kind);
    EXPECT_EQ(a[i].time, b[i].time);
    EXPECT_EQ(a[i].region, b[i].region);
    EXPECT_EQ(a[i].peer, b[i].peer);
    EXPECT_EQ(a[i].comm, b[i].comm);
    EXPECT_EQ(a[i].tag, b[i].tag);
    EXPECT_EQ(a[i].bytes, b[i].bytes);
  }
  EXPECT_EQ(a[0].region, 17u);
  EXPECT_EQ(a[1].bytes, (1ULL << 35) + 8);
  EXPECT_EQ(a[2].peer, 6u);
  EXPECT_EQ(a[3].region, 18u);
  paired.discard_spill();
  separate.discard_spill();
}

// Paired records into a tiny buffer: flushes come between pairs, nothing is
// lost and time order holds.
TEST(EventBuffer, PairedRecordsInTinyBufferLoseNothing) {
  const std::size_t n = 4000;
  EventBuffer buffer(100, spill_path(), 42);
  for (std::size_t i = 0; i < n; ++i) {
    buffer.enter_send(now(), 1, static_cast<uint32_t>(i), 0, 0, 8);
    buffer.recv_leave(now(), 1, static_cast<uint32_t>(i), 0, 0, 8);
  }
  EXPECT_GT(buffer.flushes(), 100u);
  std::size_t sends = 0;
  std::size_t recvs = 0;
  uint64_t last = 0;
  ASSERT_TRUE(buffer.for_each([&](const Record& r) {
    EXPECT_GE(r.time, last);
    last = r.time;
    if (r.kind == RecordKind::kMpiSend) {
      EXPECT_EQ(r.peer, sends);
      ++sends;
    }
    if (r.kind == RecordKind::kMpiRecv) {
      EXPECT_EQ(r.peer, recvs);
      ++recvs;
    }
  }));
  EXPECT_EQ(sends, n);
  EXPECT_EQ(recvs, n);
  buffer.discard_spill();
}

// Making the buffer's pages resident changes none of the records.
TEST(EventBuffer, PrefaultKeepsRecords) {
  EventBuffer buffer(1 << 20, spill_path(), 1);
  buffer.enter(5, 2);
  buffer.message(RecordKind::kMpiSend, 6, 1, 0, 3, 4);
  buffer.prefault(1 << 16);
  buffer.prefault(std::size_t{1} << 40);  // more than the buffer: only the buffer is touched
  buffer.leave(7, 2);
  std::vector<Record> seen;
  ASSERT_TRUE(buffer.for_each([&](const Record& r) { seen.push_back(r); }));
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0].kind, RecordKind::kEnter);
  EXPECT_EQ(seen[1].kind, RecordKind::kMpiSend);
  EXPECT_EQ(seen[1].tag, 3u);
  EXPECT_EQ(seen[2].kind, RecordKind::kLeave);
  EXPECT_EQ(seen[2].time, 7u);
  EXPECT_EQ(buffer.flushes(), 0u);
  buffer.discard_spill();
}

TEST(EventBuffer, TinyBufferFlushesAndLosesNothing) {
  const std::size_t n = 5000;
  std::vector<Record> seen;
  uint64_t flushes = 0;
  {
    EventBuffer buffer(100, spill_path(), 42);  // clamped to its minimum size
    for (std::size_t i = 0; i < n; ++i) {
      // Real clock times: the flush records its own, and all must stay in order.
      buffer.enter(now(), static_cast<uint32_t>(i % 5));
      buffer.append(message(now(), static_cast<uint32_t>(i)));
    }
    flushes = buffer.flushes();
    EXPECT_GT(flushes, 100u);
    EXPECT_EQ(buffer.write_errors(), 0u);
    EXPECT_TRUE(buffer.for_each([&](const Record& r) { seen.push_back(r); }));
    EXPECT_EQ(buffer.records(), seen.size());
    buffer.discard_spill();
  }
  EXPECT_NE(::access(spill_path().c_str(), F_OK), 0) << "spill file left behind";
  std::size_t enters = 0;
  std::size_t sends = 0;
  std::size_t flush_events = 0;
  uint64_t last = 0;
  for (const Record& r : seen) {
    EXPECT_GE(r.time, last) << "records out of time order";
    last = r.time;
    if (r.kind == RecordKind::kEnter && r.region != 42) {
      EXPECT_EQ(r.region, enters % 5);
      ++enters;
    }
    if (r.kind == RecordKind::kMpiIsend) {
      EXPECT_EQ(r.peer, sends);
      ++sends;
    }
    if (r.kind == RecordKind::kBufferFlush) ++flush_events;
  }
  EXPECT_EQ(enters, n);
  EXPECT_EQ(sends, n);
  EXPECT_EQ(flush_events, flushes);
}

// Before MPI_Init (no experiment directory yet) the buffer spills to a file in
// TMPDIR that has no name: all records come back, and nothing is ever left there.
TEST(EventBuffer, AnonymousSpillInTmpdirLosesNothingAndLeavesNoFile) {
  const std::string dir = "/tmp/orrery-unit-tmpdir-" + std::to_string(::getpid());
  ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
  const char* saved = std::getenv("TMPDIR");
  const std::string previous = saved != nullptr ? saved : "";
  ::setenv("TMPDIR", dir.c_str(), 1);
  const std::size_t n = 3000;
  std::size_t enters = 0;
  {
    EventBuffer buffer(100, "", 7);
    for (std::size_t i = 0; i < n; ++i) buffer.enter(now(), 1);
    EXPECT_GT(buffer.flushes(), 10u);
    EXPECT_EQ(buffer.write_errors(), 0u);
    EXPECT_TRUE(buffer.for_each([&](const Record& r) { enters += r.kind == RecordKind::kEnter && r.region == 1; }));
    EXPECT_EQ(::rmdir(dir.c_str()), 0) << "a named spill file is in TMPDIR while the buffer lives";
    buffer.discard_spill();
  }
  if (saved != nullptr) {
    ::setenv("TMPDIR", previous.c_str(), 1);
  } else {
    ::unsetenv("TMPDIR");
  }
  ::rmdir(dir.c_str());
  EXPECT_EQ(enters, n);
}

}  // namespace
}  // namespace orrery::measure

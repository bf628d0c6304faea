// The words of a delay record (delay_record_format.h): whatever the widths
// of its fields, a record reads back as it was written, records follow one
// another, a record cut short is not read past its end, and a typical record of a
// communication-heavy trace is 5 words. Part of analyzer_interval_profile_test.

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "delay_record_format.h"

namespace orrery::testing {
namespace {

using analyzer::delay::RecordHead;
using analyzer::delay::SyncKind;
using Entries = std::vector<std::pair<uint32_t, int64_t>>;

/// A key that is not the index (the keys differ from rank to rank).
uint64_t key_of(uint32_t callpath) { return 0x9e3779b97f4a7c15ULL * (callpath + 1); }

struct Written {
  RecordHead head;
  Entries entries;
};

/// Writes `w` as the waiter does: head, entries as they come, own waiting.
void write(analyzer::delay::RecordWriter& writer, const Written& w) {
  writer.begin(w.head);
  for (const auto& [callpath, ticks] : w.entries) writer.entry(callpath, key_of(callpath), ticks);
  writer.end(w.head.own_waiting);
}

/// Values of every width a field may take, the narrow ones most often.
int64_t any_ticks(std::mt19937_64& random) {
  switch (random() % 6) {
    case 0: return static_cast<int64_t>(random() >> 1);          // wide
    case 1: return int64_t{0xffffffff} + (random() % 3);          // at the edge
    case 2: return -static_cast<int64_t>(random() % 1000) - 1;    // negative
    default: return static_cast<int64_t>(random() % 100000);
  }
}

Written any_record(std::mt19937_64& random) {
  Written w;
  w.head.kind = random() % 2 == 0 ? analyzer::WaitKind::kLateSender : analyzer::WaitKind::kLateReceiver;
  w.head.sync = static_cast<SyncKind>(random() % 3);
  w.head.op = static_cast<uint32_t>(random());
  if (w.head.sync != SyncKind::kNone) w.head.sync_a = static_cast<uint32_t>(random());
  // Most often the message before the operation (the sync takes no word).
  if (w.head.sync == SyncKind::kMessage && random() % 2 == 0) w.head.sync_a = w.head.op - 1;
  if (w.head.sync == SyncKind::kCollective) w.head.sync_b = static_cast<uint32_t>(random());
  w.head.waiting = any_ticks(random);
  w.head.own_waiting = random() % 3 == 0 ? any_ticks(random) : 0;
  w.head.keys = random() % 2 == 0;
  const std::size_t n = random() % 6;
  for (std::size_t e = 0; e < n; ++e) {
    const int64_t ticks = random() % 5 == 0 ? static_cast<int64_t>(random() >> 2) + 1
                                            : 1 + static_cast<int64_t>(random() % 5000);
    // Call paths and ticks around what one word holds (10 and 20 bits).
    const uint32_t callpath = static_cast<uint32_t>(random() % 3 == 0 ? random() % 100000
                                                                      : random() % 1030);
    w.entries.emplace_back(callpath, random() % 7 == 0 ? (int64_t{1} << 20) - 1 + static_cast<int64_t>(random() % 3) : ticks);
  }
  return w;
}

TEST(DelayRecordFormat, RecordsReadBackAsWrittenOneAfterAnother) {
  std::mt19937_64 random(5);
  std::vector<Written> written;
  std::vector<uint32_t> words;
  // A rank with few call paths counts entries in the first word, one
  // with 65535 or more in a word of their own: both, record by record.
  analyzer::delay::RecordWriter few(words, 300), many(words, 70000);
  for (int r = 0; r < 3000; ++r) {
    written.push_back(any_record(random));
    write(r % 3 == 0 ? many : few, written.back());
  }
  const uint32_t* at = words.data();
  const uint32_t* const end = words.data() + words.size();
  for (std::size_t r = 0; r < written.size(); ++r) {
    RecordHead head;
    std::vector<std::pair<uint64_t, int64_t>> entries;
    at = analyzer::delay::read_record(at, end, head, [&](uint64_t callpath, int64_t ticks) {
      entries.emplace_back(callpath, ticks);
    });
    ASSERT_NE(at, nullptr) << "record " << r;
    const RecordHead& want = written[r].head;
    EXPECT_EQ(head.kind, want.kind);
    EXPECT_EQ(head.sync, want.sync);
    EXPECT_EQ(head.op, want.op);
    EXPECT_EQ(head.sync_a, want.sync_a);
    EXPECT_EQ(head.sync_b, want.sync_b);
    EXPECT_EQ(head.waiting, want.waiting) << "record " << r;
    EXPECT_EQ(head.own_waiting, want.own_waiting) << "record " << r;
    EXPECT_EQ(head.keys, want.keys);
    ASSERT_EQ(entries.size(), written[r].entries.size()) << "record " << r;
    for (std::size_t e = 0; e < entries.size(); ++e) {
      // Keys travel whole, indices as they are.
      const uint32_t callpath = written[r].entries[e].first;
      EXPECT_EQ(entries[e].first, want.keys ? key_of(callpath) : callpath);
      EXPECT_EQ(entries[e].second, written[r].entries[e].second);
    }
  }
  EXPECT_EQ(at, end);
}

TEST(DelayRecordFormat, ARecordCutShortIsNotRead) {
  std::mt19937_64 random(7);
  for (int r = 0; r < 300; ++r) {
    const Written w = any_record(random);
    std::vector<uint32_t> words;
    analyzer::delay::RecordWriter writer(words, r % 2 == 0 ? 300 : 70000);
    write(writer, w);
    for (std::size_t cut = 0; cut < words.size(); cut += 1 + cut / 8) {
      // Only the words before the cut exist: a copy of exactly that many.
      const std::vector<uint32_t> part(words.begin(), words.begin() + static_cast<std::ptrdiff_t>(cut));
      RecordHead head;
      std::size_t handed = 0;
      EXPECT_EQ(analyzer::delay::read_record(part.data(), part.data() + part.size(), head,
                                             [&](uint64_t, int64_t) { ++handed; }),
                nullptr)
          << "record " << r << " cut at " << cut << " of " << words.size();
      EXPECT_LE(handed, w.entries.size());
    }
  }
}

TEST(DelayRecordFormat, ATypicalRecordIsFiveWords) {
  // A Late Sender whose interval starts at the previous message, 3 us of
  // waiting, two call paths by index (the communication-only benchmark's:
  // the receive's own time and its caller's).
  RecordHead head;
  head.sync = SyncKind::kMessage;
  head.op = 41;
  head.sync_a = 40;
  head.waiting = 3000;
  std::vector<uint32_t> words;
  analyzer::delay::RecordWriter writer(words, 40);
  write(writer, Written{head, {{1, 1200}, {2, 350}}});
  // 20 bytes (64-bit fields took 80): the head's word, the operation, the
  // waiting and an entry per word; the message before the operation's takes none.
  EXPECT_EQ(words.size(), 5u);
  head.sync_a = 39;  // another message: its number
  words.clear();
  write(writer, Written{head, {{1, 1200}, {2, 350}}});
  EXPECT_EQ(words.size(), 6u);
  words.clear();  // a call path or a time beyond a word's fields: two words
  write(writer, Written{head, {{1024, 1200}, {2, int64_t{1} << 20}}});
  EXPECT_EQ(words.size(), 8u);
  head.keys = true;  // by key: four words per entry
  words.clear();
  write(writer, Written{head, {{1, 1200}, {2, 350}}});
  EXPECT_EQ(words.size(), 12u);
}

}  // namespace
}  // namespace orrery::testing

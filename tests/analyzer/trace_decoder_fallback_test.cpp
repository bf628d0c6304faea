// Where Orrery's OTF2 event decoder must leave a location to libotf2 (an
// archive or mapping table it does not take, a record it handles but whose
// bytes are not as expected): the result is then libotf2's, nothing of the
// decoder's half-built trace left in it. And a truncated or corrupt event
// file is an InputError with libotf2's message, never a crash.

#include <gtest/gtest.h>
#include <otf2/otf2.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "decoder_comparison.h"
#include "test_archive.h"

namespace orrery::testing {
namespace {

namespace fs = std::filesystem;

std::vector<uint8_t> read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
void write_bytes(const fs::path& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

/// Where `pattern` starts in `bytes` (it must be there once).
std::size_t find_once(const std::vector<uint8_t>& bytes, const std::vector<uint8_t>& pattern) {
  const auto at = std::search(bytes.begin(), bytes.end(), pattern.begin(), pattern.end());
  EXPECT_NE(at, bytes.end());
  EXPECT_EQ(std::search(at + 1, bytes.end(), pattern.begin(), pattern.end()), bytes.end());
  return static_cast<std::size_t>(at - bytes.begin());
}

/// A small trace: main with `iterations` sends and a measurement-off gap at
/// time 0x0123456789 (a timestamp no other event has).
constexpr uint64_t kOffTime = 0x0123456789;
void write_small(const std::string& dir, uint32_t iterations = 2000) {
  TestArchive archive(dir, 1);
  const uint32_t main_region = archive.region("main");
  const uint32_t send = archive.region("MPI_Send", "mpi");
  TestArchive::Rank& rank = archive.rank(0);
  uint64_t t = 1000;
  rank.enter(t, main_region);
  for (uint32_t i = 0; i < iterations; ++i) {
    rank.enter(t += 3, send);
    rank.send(t += 1, 0, TestArchive::kWorld, i, 64 + i);
    rank.leave(t += 2, send);
  }
  rank.measurement(kOffTime, false);
  rank.measurement(kOffTime + 10, true);
  rank.enter(kOffTime + 20, send);
  rank.leave(kOffTime + 30, send);
  rank.leave(kOffTime + 40, main_region);
  archive.close();
}

/// The timestamp record (0x05 + 8 little-endian bytes) of `time`.
std::vector<uint8_t> timestamp_bytes(uint64_t time) {
  std::vector<uint8_t> bytes{5};
  for (int i = 0; i < 8; ++i) bytes.push_back(static_cast<uint8_t>(time >> (8 * i)));
  return bytes;
}

/// write_small()'s trace in a fresh directory, with one byte changed: the
/// one `offset` bytes into `record` (type byte first) after the timestamp of `time`.
std::string small_trace_with_byte_set(const std::string& name, uint64_t time, const std::vector<uint8_t>& record,
                                      std::size_t offset, uint8_t value) {
  const std::string dir = fresh_dir(name);
  write_small(dir);
  const fs::path events = fs::path(dir) / "traces" / "0.evt";
  std::vector<uint8_t> bytes = read_bytes(events);
  std::vector<uint8_t> pattern = timestamp_bytes(time);
  pattern.insert(pattern.end(), record.begin(), record.end());
  bytes[find_once(bytes, pattern) + 9 + offset] = value;
  write_bytes(events, bytes);
  return dir;
}

TEST(TraceDecoderFallback, MappingTableWithAnIdTooLargeForTheDecoderIsLibotf2s) {
  const std::string dir = fresh_dir("huge-id");
  {
    TestArchive archive(dir, 1);
    const uint32_t main_region = archive.region("main");
    const uint32_t work = archive.region("work");
    TestArchive::Rank& rank = archive.rank(0);
    rank.enter(1, main_region);
    rank.enter(2, 0x40000000);  // mapped to work
    rank.leave(3, 0x40000000);
    rank.leave(4, main_region);
    archive.mapping_table(0, OTF2_MAPPING_REGION, {{0x40000000, work}});
    archive.close();
  }
  const analyzer::LocalTrace ours = read_both_ways(dir, false);
  EXPECT_EQ(ours.calltree.size(), 2u);  // main/work: libotf2 mapped the id
  fs::remove_all(dir);
}

/// A MeasurementOnOff whose length byte says 0: its mode byte lies after
/// the record. libotf2 reads it from there anyway and goes on at the
/// announced end (where it finds 0x02: the end of the file); the decoder
/// falls back, the first half it built is discarded.
TEST(TraceDecoderFallback, RecordTooShortForItsFieldsIsReadByLibotf2) {
  // MeasurementOnOff, length 1, OFF: the length byte set to 0.
  const std::string dir = small_trace_with_byte_set("short-record", kOffTime, {11, 1, 2}, 1, 0);
  const analyzer::LocalTrace ours = read_both_ways(dir, false);
  EXPECT_EQ(ours.sends.size(), 2000u);
  EXPECT_LT(ours.last_time, static_cast<int64_t>(kOffTime + 10));  // libotf2 stopped at the 0x02 after it
  fs::remove_all(dir);
}

TEST(TraceDecoderFallback, ImpossibleCompressedWidthIsLibotf2sInputError) {
  // Enter of a one-byte region id: the 32-bit field made 7 bytes wide.
  const std::string dir = small_trace_with_byte_set("width", kOffTime + 20, {12, 1}, 1, 7);
  const std::string libotf2 = outcome_with(dir, "otf2");
  EXPECT_NE(libotf2, "ok");
  EXPECT_EQ(outcome_with(dir, nullptr), libotf2);
  EXPECT_THROW(read_with(dir, nullptr), orrery::InputError);
  fs::remove_all(dir);
}

/// Cut anywhere (in a header, a timestamp, a record, between records): an
/// InputError of the decoder's own. (libotf2 reads on into memory the file
/// did not fill: its answer changes from run to run.) Only the last byte
/// (after OTF2's end-of-file mark) may go.
TEST(TraceDecoderFallback, TruncatedFileIsAnInputError) {
  const std::string dir = fresh_dir("truncated");
  write_small(dir, 300);
  const fs::path events = fs::path(dir) / "traces" / "0.evt";
  const std::vector<uint8_t> whole = read_bytes(events);
  for (std::size_t cut : {std::size_t{0}, std::size_t{1}, std::size_t{10}, std::size_t{18}, std::size_t{23},
                          whole.size() / 3, whole.size() / 2 + 1, whole.size() - 3, whole.size() - 2}) {
    write_bytes(events, std::vector<uint8_t>(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(cut)));
    const std::string ours = outcome_with(dir, nullptr);
    EXPECT_NE(ours.find("is truncated: "), std::string::npos) << "cut at " << cut << ": " << ours;
    EXPECT_EQ(ours.find('\n'), std::string::npos);
  }
  write_bytes(events, std::vector<uint8_t>(whole.begin(), whole.end() - 1));
  expect_same_trace(read_with(dir, nullptr), read_with(dir, "otf2"));
  fs::remove_all(dir);
}

/// A flipped byte anywhere: never a crash; the same answer every time;
/// where both read the file, the same trace. (Where libotf2 rejects it the
/// decoder may read it: damage inside records both skip, whose fields
/// libotf2 checks all the same.)
TEST(TraceDecoderFallback, DamagedFileIsReadAsLibotf2ReadsItOrRejected) {
  const std::string dir = fresh_dir("damaged");
  write_small(dir, 300);
  const fs::path events = fs::path(dir) / "traces" / "0.evt";
  const std::vector<uint8_t> whole = read_bytes(events);
  int both_read = 0;
  for (std::size_t at = 0; at < whole.size(); at += 37) {
    std::vector<uint8_t> damaged = whole;
    damaged[at] ^= 0xff;
    write_bytes(events, damaged);
    std::optional<analyzer::LocalTrace> ours, libotf2;
    std::string our_error;
    try {
      ours = read_with(dir, nullptr);
    } catch (const InputError& error) {
      our_error = error.what();
    }
    EXPECT_EQ(outcome_with(dir, nullptr), ours ? "ok" : our_error) << "byte " << at << " flipped";
    try {
      libotf2 = read_with(dir, "otf2");
    } catch (const InputError&) {
    }
    if (ours && libotf2) {
      expect_same_trace(*ours, *libotf2);
      ++both_read;
    }
  }
  EXPECT_GT(both_read, 10);
  fs::remove_all(dir);
}

/// A trace of one rank whose last events are written by `last`.
template <class F>
std::string trace_ending_with(const std::string& name, F&& last) {
  const std::string dir = fresh_dir(name);
  TestArchive archive(dir, 1);
  const uint32_t main_region = archive.region("main");
  archive.rank(0).enter(1000, main_region);
  last(archive, main_region);
  archive.close();
  return dir;
}

// Time stamps and clock offsets beyond any real clock (a fuzzer's input had
// an Enter at 2^63 + x and a BufferFlush's stop near 2^62: the builder's
// duration overflowed an int64) are an InputError on both ways of reading.
TEST(TraceDecoderFallback, TimeBeyondAnyRealClockIsAnInputError) {
  const uint64_t too_late = uint64_t{1} << 62;
  const std::vector<std::string> dirs{
      trace_ending_with("late-leave", [&](TestArchive& a, uint32_t main_region) {
        a.rank(0).leave(too_late + 5, main_region);
      }),
      trace_ending_with("late-enter", [&](TestArchive& a, uint32_t main_region) {
        a.rank(0).enter(uint64_t{1} << 63, main_region);
        a.rank(0).leave(uint64_t{1} << 63, main_region);
        a.rank(0).leave(uint64_t{1} << 63, main_region);
      }),
      trace_ending_with("late-flush-stop", [&](TestArchive& a, uint32_t main_region) {
        a.rank(0).buffer_flush(2000, too_late);
        a.rank(0).leave(3000, main_region);
      }),
      trace_ending_with("corrupt-clock-offset", [&](TestArchive& a, uint32_t main_region) {
        a.clock_offset(0, 1000, int64_t{1} << 61);
        a.clock_offset(0, 1001, -(int64_t{1} << 61));
        a.rank(0).leave(3000, main_region);
      }),
  };
  for (const std::string& dir : dirs) {
    for (const char* decoder : {"otf2", "orrery"}) {
      const std::string outcome = outcome_with(dir, decoder);
      EXPECT_TRUE(outcome.find("corrupt") != std::string::npos) << dir << " with " << decoder << ": " << outcome;
      EXPECT_EQ(outcome.find('\n'), std::string::npos) << outcome;
    }
    fs::remove_all(dir);
  }
  // Just inside the limit it reads (as the same trace one tick later would not).
  const std::string fine = trace_ending_with("latest-time", [&](TestArchive& a, uint32_t main_region) {
    a.rank(0).leave(too_late - 1, main_region);
  });
  EXPECT_EQ(outcome_with(fine, "orrery"), "ok");
  EXPECT_EQ(outcome_with(fine, "otf2"), "ok");
  fs::remove_all(fine);
}

TEST(TraceDecoderFallback, EnvironmentSwitchSelectsLibotf2) {
  const std::string dir = fresh_dir("switch");
  write_small(dir, 10);
  const uint64_t decoded = analyzer::decoder_counts().decoded;
  const uint64_t fell_back = analyzer::decoder_counts().fell_back;
  (void)read_with(dir, "otf2");
  EXPECT_EQ(analyzer::decoder_counts().decoded, decoded);
  EXPECT_EQ(analyzer::decoder_counts().fell_back, fell_back);
  (void)read_with(dir, "orrery");
  EXPECT_EQ(analyzer::decoder_counts().decoded, decoded + 1);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace orrery::testing

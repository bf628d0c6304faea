// The timeline summary (viewer/src/timeline_summary*.cpp) against the events
// it summarizes: a generated 3-rank trace of ~40,000 events with nested
// regions, a measurement region, and a ring of messages with late senders.

#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "orrery/trace/timeline.h"
#include "test_archive.h"
#include "timeline_data.h"
#include "timeline_summary.h"
#include "timeline_summary_view.h"

namespace orrery::viewer {
namespace {

namespace fs = std::filesystem;
namespace tl = analyzer::timeline;
using orrery::testing::TestArchive;
using nlohmann::json;

constexpr uint32_t kRanks = 3;

/// Per iteration and rank: work (or relax inside work), a send to the next
/// rank and a receive from the previous one, every 50th iteration a buffer
/// flush; compute times vary, so receives wait for late senders.
std::string write_trace(const std::string& name, uint32_t iterations) {
  const std::string dir =
      (fs::temp_directory_path() / ("orrery_summary_" + name + "_" + std::to_string(::getpid()))).string();
  fs::remove_all(dir);
  fs::create_directories(dir);
  TestArchive a(dir, kRanks);
  const uint32_t main = a.region("main");
  const uint32_t work = a.region("work");
  const uint32_t relax = a.region("relax");
  const uint32_t send = a.region("MPI_Send", "mpi");
  const uint32_t recv = a.region("MPI_Recv", "mpi");
  const uint32_t flush = a.region("ORRERY_BUFFER_FLUSH", "measurement");
  std::vector<uint64_t> t(kRanks, 100);
  std::vector<uint64_t> send_enter(kRanks, 0);
  uint64_t seed = 12345;
  auto next = [&seed] { return (seed = seed * 6364136223846793005ULL + 1442695040888963407ULL) >> 33U; };
  for (uint32_t r = 0; r < kRanks; ++r) a.rank(r).enter(t[r], main);
  for (uint32_t i = 0; i < iterations; ++i) {
    for (uint32_t r = 0; r < kRanks; ++r) {
      auto& w = a.rank(r);
      w.enter(t[r] += 3, work);
      if (i % 3 == 0) {
        w.enter(t[r] += 7, relax);
        w.leave(t[r] += 20 + next() % 400, relax);
      }
      w.leave(t[r] += 50 + next() % (r == 1 ? 900 : 300), work);
      if (i % 50 == 0) {
        w.enter(t[r] += 2, flush);
        w.leave(t[r] += 150, flush);
      }
      send_enter[r] = t[r] += 4;
      w.enter(t[r], send);
      w.send(t[r] + 1, (r + 1) % kRanks, TestArchive::kWorld, 3, 1024);
      w.leave(t[r] += 9, send);
    }
    for (uint32_t r = 0; r < kRanks; ++r) {
      auto& w = a.rank(r);
      const uint32_t from = (r + kRanks - 1) % kRanks;
      w.enter(t[r] += 2, recv);
      t[r] = std::max(t[r], send_enter[from]) + 15;
      w.recv(t[r], from, TestArchive::kWorld, 3, 1024);
      w.leave(t[r] += 1, recv);
    }
  }
  for (uint32_t r = 0; r < kRanks; ++r) a.rank(r).leave(t[r] += 10, main);
  a.close();
  return dir;
}

/// One trace for all tests of the process (written once, removed at exit; each test builds its own summary).
const std::string& trace_dir() {
  struct Removed {
    std::string dir;
    ~Removed() {
      std::error_code ignored;
      fs::remove_all(dir, ignored);
    }
  };
  static const Removed trace{write_trace("shared", 1500)};
  return trace.dir;
}

int64_t ticks(const tl::Definitions& defs, double seconds) {
  return std::llround(seconds * static_cast<double>(defs.resolution));
}

struct Built {
  tl::Definitions defs;
  std::string path;
  std::unique_ptr<TimelineSummary> summary;
};

Built build(const std::string& dir, const std::string& name) {
  Built b{tl::read_definitions(dir), (fs::path(dir) / (name + ".summary")).string(), nullptr};
  build_summary(b.defs, b.path);
  b.summary = std::make_unique<TimelineSummary>(b.defs, b.path);
  return b;
}

TEST(TimelineSummary, HasLevelsCheckpointsAndWaits) {
  const Built b = build(trace_dir(), "shape");
  const SummaryHeader& h = b.summary->header();
  EXPECT_EQ(h.ranks, kRanks);
  EXPECT_GT(h.levels, 2U);
  EXPECT_GT(b.summary->checkpoints(0).size(), 3U);  // > 12,000 events per rank
  EXPECT_GT(b.summary->waits(0).size(), 10U);
}

// Every base bin holds exactly the time of the segments inside it, per kind
// (the events' ticks, split at bin edges).
TEST(TimelineSummary, BaseBinsSumExactlyToTheSegmentsPerKind) {
  const Built b = build(trace_dir(), "exact");
  const auto base = static_cast<int64_t>(b.summary->header().base_ticks);
  for (uint32_t r = 0; r < kRanks; ++r) {
    const tl::RankTimeline trace = tl::read_rank(b.defs, r);
    const auto bins = b.summary->bins(r, 0);
    std::vector<std::array<int64_t, kKinds>> expected(bins.size());
    std::array<int64_t, kKinds> total{};
    for (const tl::Segment& s : trace.segments) {
      const auto kind = static_cast<std::size_t>(b.defs.regions[trace.instances[s.instance].region].kind);
      const int64_t from = ticks(b.defs, s.begin);
      const int64_t to = ticks(b.defs, s.end);
      total.at(kind) += to - from;
      for (int64_t k = from / base; k * base < to; ++k) {
        const int64_t lo = std::max(from, k * base);
        const int64_t hi = std::min(to, (k + 1) * base);
        expected.at(static_cast<std::size_t>(std::min<int64_t>(k, static_cast<int64_t>(bins.size()) - 1))).at(kind) += hi - lo;
      }
    }
    std::array<int64_t, kKinds> summed{};
    for (std::size_t k = 0; k < bins.size(); ++k) {
      for (std::size_t kind = 0; kind < kKinds; ++kind) {
        ASSERT_EQ(static_cast<int64_t>(bins[k].time.at(kind)), expected[k].at(kind)) << "rank " << r << " bin " << k;
        summed.at(kind) += static_cast<int64_t>(bins[k].time.at(kind));
      }
    }
    EXPECT_EQ(summed, total);
    EXPECT_GT(total.at(2), 0);  // the buffer flushes are measurement time
  }
}

// The waits are the events' late-sender waits (TimelineSource::call_waits), and the bins hold their time.
TEST(TimelineSummary, WaitsAreTheLateSenderWaits) {
  const Built b = build(trace_dir(), "waits");
  TimelineSource source(trace_dir());
  source.set_summary_mode(SummaryMode::kNever);
  for (uint32_t r = 0; r < kRanks; ++r) {
    std::vector<CallWait> expected;
    for (const CallWait& c : source.call_waits(r)) {
      if (c.wait() > 0) expected.push_back(c);
    }
    const auto waits = b.summary->waits(r);
    ASSERT_EQ(waits.size(), expected.size()) << "rank " << r;
    int64_t total = 0;
    for (std::size_t i = 0; i < waits.size(); ++i) {
      EXPECT_EQ(waits[i].enter, ticks(b.defs, expected[i].enter));
      EXPECT_EQ(waits[i].end, ticks(b.defs, expected[i].wait_end));
      EXPECT_EQ(waits[i].sender, expected[i].sender);
      EXPECT_EQ(waits[i].instance, expected[i].instance);
      total += waits[i].end - waits[i].enter;
    }
    int64_t in_bins = 0;
    for (const SummaryBin& bin : b.summary->bins(r, 0)) in_bins += static_cast<int64_t>(bin.wait);
    EXPECT_EQ(in_bins, total);
  }
}

TEST(TimelineSummary, EachLevelIsTheSumOfTheFinerOne) {
  const Built b = build(trace_dir(), "levels");
  for (uint32_t r = 0; r < kRanks; ++r) {
    for (uint32_t l = 1; l < b.summary->header().levels; ++l) {
      const auto fine = b.summary->bins(r, l - 1);
      const auto coarse = b.summary->bins(r, l);
      ASSERT_EQ(coarse.size(), (fine.size() + kLevelFactor - 1) / kLevelFactor);
      for (std::size_t j = 0; j < coarse.size(); ++j) {
        SummaryBin sum;
        for (std::size_t i = j * kLevelFactor; i < std::min(fine.size(), (j + 1) * kLevelFactor); ++i) {
          for (std::size_t k = 0; k < kKinds; ++k) sum.time.at(k) += fine[i].time.at(k);
          sum.wait += fine[i].wait;
          sum.pieces += fine[i].pieces;
        }
        EXPECT_EQ(coarse[j].time, sum.time) << "rank " << r << " level " << l << " bin " << j;
        EXPECT_EQ(coarse[j].wait, sum.wait);
        EXPECT_EQ(coarse[j].pieces, sum.pieces);
      }
    }
  }
}

/// Per kind and for waits, the time a row shows from t0 up to each pixel's end.
/// The waits from the row, or (events' rows merge waits over more than a pixel) from `waits`, exact.
std::vector<std::array<double, kKinds + 1>> cumulative(const json& row, const tl::Definitions& defs, double t0,
                                                      double pixel, uint32_t width,
                                                      const std::vector<CallWait>* waits = nullptr) {
  std::vector<std::array<double, kKinds + 1>> at(width);
  auto add = [&](double b, double e, std::size_t slot, double time) {
    // Spread evenly over [b, e) (a piece is at most a pixel wide when merged).
    for (uint32_t p = 0; p < width; ++p) {
      const double lo = std::max({b, t0, t0 + p * pixel});
      const double hi = std::min({e, t0 + (width * pixel), t0 + (p + 1) * pixel});
      if (hi > lo) at[p].at(slot) += time * (hi - lo) / (e - b);
    }
  };
  for (const json& s : row["spans"]) {
    if (s.size() > 6) {
      for (const json& part : s[6]) {
        add(s[0], s[1], static_cast<std::size_t>(defs.regions.at(part[0].get<uint32_t>()).kind), part[1]);
      }
    } else {
      add(s[0], s[1], static_cast<std::size_t>(defs.regions.at(s[2].get<uint32_t>()).kind),
          s[1].get<double>() - s[0].get<double>());
    }
  }
  if (waits == nullptr) {
    for (const json& w : row["waits"]) add(w[0], w[1], kKinds, w[2]);
  } else {
    for (const CallWait& w : *waits) {
      if (w.wait() > 0) add(w.enter, w.wait_end, kKinds, w.wait());
    }
  }
  for (uint32_t p = 1; p < width; ++p) {
    for (std::size_t k = 0; k <= kKinds; ++k) at[p].at(k) += at[p - 1].at(k);
  }
  return at;
}

// Drawn from the summary, a window shows the time the events' window shows,
// per kind and waiting, up to any pixel, within one bin's time.
TEST(TimelineSummary, ViewsFromTheSummaryEqualViewsFromTheEventsWithinABin) {
  TimelineSource events(trace_dir());
  events.set_summary_mode(SummaryMode::kNever);
  TimelineSource summarized(trace_dir());
  summarized.set_summary_mode(SummaryMode::kAlways);
  const auto& defs = events.definitions();
  // (4,096 base bins per rank here, ~3 events each.)
  const std::vector<std::tuple<double, double, uint32_t>> windows = {
      {0, defs.duration, 97},           {0, defs.duration, 500},
      {defs.duration * 0.1, defs.duration * 0.6, 250}, {defs.duration * 0.3, defs.duration * 0.35, 25}};
  for (const auto& [t0, t1, width] : windows) {
    {
      TimelineWindow request;
      request.t0 = t0;
      request.t1 = t1;
      request.width = width;
      request.ranks = kRanks;
      const json a = events.window(request);
      const json b = summarized.window(request);
      ASSERT_EQ(b["source"]["from"], "summary") << t0 << " " << t1 << " at " << width;
      const double bin = b["source"]["bin"];
      const double pixel = (t1 - t0) / width;
      EXPECT_LE(bin, pixel);
      for (uint32_t r = 0; r < kRanks; ++r) {
        const std::vector<CallWait> waits = events.call_waits(r);
        const auto x = cumulative(a["rows"][r], defs, t0, pixel, width, &waits);
        const auto y = cumulative(b["rows"][r], defs, t0, pixel, width);
        for (uint32_t p = 0; p < width; ++p) {
          for (std::size_t k = 0; k <= kKinds; ++k) {
            // Both sides round to ns; an events' merged piece may lie across a pixel edge.
            ASSERT_NEAR(x[p].at(k), y[p].at(k), bin + pixel + 1e-9 * width)
                << "rank " << r << " pixel " << p << " kind " << k << " window " << t0 << "-" << t1;
          }
        }
        EXPECT_NEAR(x.back().at(kKinds), y.back().at(kKinds), 2 * bin + 1e-9 * width);
      }
    }
  }
}

// A pixel finer than a base bin: the window's events are read from the
// nearest checkpoint; the rows equal the events' rows (instances numbered as on the whole rank).
TEST(TimelineSummary, FineWindowsReadTheEventsFromACheckpoint) {
  TimelineSource events(trace_dir());
  events.set_summary_mode(SummaryMode::kNever);
  TimelineSource summarized(trace_dir());
  summarized.set_summary_mode(SummaryMode::kAlways);
  const double duration = events.definitions().duration;
  for (const double at : {0.0, 0.237, 0.5, 0.81, 0.999}) {
    TimelineWindow request;
    request.t0 = duration * at;
    request.t1 = request.t0 + duration * 0.002;
    request.width = 800;
    request.ranks = kRanks;
    request.callpath = {"main", "work", "relax"};
    const json a = events.window(request);
    const json b = summarized.window(request);
    ASSERT_EQ(b["source"]["from"], "events");
    EXPECT_LT(b["source"]["events_read"].get<uint64_t>(), 3U * 2 * kCheckpointEvery + 2000);
    for (uint32_t r = 0; r < kRanks; ++r) {
      EXPECT_EQ(a["rows"][r]["spans"], b["rows"][r]["spans"]) << "rank " << r << " at " << at;
      EXPECT_EQ(a["rows"][r]["waits"], b["rows"][r]["waits"]) << "rank " << r << " at " << at;
      EXPECT_EQ(a["rows"][r]["marks"], b["rows"][r]["marks"]) << "rank " << r << " at " << at;
    }
  }
}

std::string summary_path() { return (fs::path(trace_dir()) / kSummaryFile).string(); }

json status_after_open() {
  TimelineSource source(trace_dir());
  source.set_summary_mode(SummaryMode::kAlways);
  EXPECT_NE(source.summary(), nullptr);
  return source.summary_status();
}

TEST(TimelineSummary, BuiltOnceThenReopened) {
  fs::remove(summary_path());
  json first = status_after_open();
  EXPECT_TRUE(first["built"].get<bool>());
  EXPECT_EQ(first["path"], summary_path());
  json second = status_after_open();
  EXPECT_FALSE(second["built"].get<bool>());
  EXPECT_FALSE(second.contains("note"));
}

TEST(TimelineSummary, AStaleSummaryIsRebuilt) {
  status_after_open();
  const tl::Definitions defs = tl::read_definitions(trace_dir());
  const fs::path evt = fs::path(trace_dir()) / "traces" / (std::to_string(defs.ranks[1].location) + ".evt");
  fs::last_write_time(evt, fs::last_write_time(evt) + std::chrono::seconds(5));
  const json status = status_after_open();
  EXPECT_TRUE(status["built"].get<bool>());
  EXPECT_NE(status["note"].get<std::string>().find("another trace"), std::string::npos) << status.dump();
}

void overwrite(const std::string& path, std::size_t offset, const void* data, std::size_t n) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(static_cast<std::streamoff>(offset));
  f.write(static_cast<const char*>(data), static_cast<std::streamsize>(n));
}

TEST(TimelineSummary, ACorruptSummaryIsRefusedAndRebuilt) {
  status_after_open();
  const std::size_t size = fs::file_size(summary_path());
  const char junk[4] = {'x', 'y', 'z', 'w'};
  overwrite(summary_path(), size / 2, junk, sizeof(junk));
  json status = status_after_open();
  EXPECT_TRUE(status["built"].get<bool>());
  EXPECT_NE(status["note"].get<std::string>().find("checksum"), std::string::npos) << status.dump();
  EXPECT_NE(status["note"].get<std::string>().find("not trusted"), std::string::npos);
  fs::resize_file(summary_path(), size - 100);
  status = status_after_open();
  EXPECT_TRUE(status["built"].get<bool>());
  EXPECT_NE(status["note"].get<std::string>().find("bytes"), std::string::npos) << status.dump();
}

// Offsets are never trusted: a rank table pointing past the end, with a valid
// checksum, is refused before anything is read through it.
TEST(TimelineSummary, OffsetsBeyondTheFileAreRefusedEvenWithAValidChecksum) {
  status_after_open();
  const std::string path = summary_path();
  const uint64_t far = uint64_t{1} << 40U;
  overwrite(path, sizeof(SummaryHeader) + offsetof(SummaryRankTable, waits), &far, sizeof(far));
  const std::size_t size = fs::file_size(path);
  const uint64_t sum = summary_file_checksum(path, size - 8);
  overwrite(path, size - 8, &sum, sizeof(sum));
  const tl::Definitions defs = tl::read_definitions(trace_dir());
  try {
    const TimelineSummary s(defs, path);
    FAIL() << "accepted";
  } catch (const SummaryRejected& e) {
    EXPECT_FALSE(e.stale());
    EXPECT_NE(std::string(e.what()).find("beyond the end"), std::string::npos) << e.what();
  }
}

TEST(TimelineSummary, AutoModeLeavesSmallTracesToTheirEvents) {
  TimelineSource source(trace_dir());
  EXPECT_EQ(source.summary(), nullptr);
  EXPECT_FALSE(source.summary_status()["used"].get<bool>());
}

}  // namespace
}  // namespace orrery::viewer

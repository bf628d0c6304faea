// The timeline: the trace reader (orrery::analyzer::timeline) and the
// viewer's /api/timeline* endpoints over a hand-built OTF2 archive with
// known instances, messages and late-sender waits.

#include <gtest/gtest.h>
#include <httplib.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "api.h"
#include "orrery/trace/timeline.h"
#include "orrery/error.h"
#include "server.h"
#include "test_archive.h"

namespace orrery::viewer {
namespace {

namespace fs = std::filesystem;
namespace tl = analyzer::timeline;
using orrery::testing::TestArchive;
using nlohmann::json;

constexpr double kNs = 1e-9;

/// Three ranks (times in ns):
///  rank 0: main [0,5000]: work [100,400]; MPI_Send [1000,1100] to 1 tag 5;
///          MPI_Send [2000,2050] to 1 tag 5
///  rank 1: main [0,5000]: MPI_Recv [500,1200] from 0 (late sender: waits 500..1000);
///          MPI_Recv [3000,3020] from 0 (send was earlier: no wait);
///          MPI_Irecv [2500,2510]; MPI_Wait [3200,3700] completes it from 2 tag 7
///          (late sender: waits 3200..3500)
///  rank 2: main [0,5000]: 100 × work of 10 ns every 20 ns from 100;
///          MPI_Isend [3500,3510] to 1 tag 7; MPI_Wait [3600,3650]
struct Fixture {
  std::string dir;
  uint32_t main = 0, work = 0, send = 0, recv = 0, isend = 0, irecv = 0, wait = 0;
};

Fixture write_archive(const std::string& name) {
  Fixture f;
  f.dir = (fs::temp_directory_path() / ("orrery_timeline_" + name + "_" + std::to_string(::getpid()))).string();
  fs::remove_all(f.dir);
  fs::create_directories(f.dir);
  TestArchive archive(f.dir, 3);
  f.main = archive.region("main");
  f.work = archive.region("work");
  f.send = archive.region("MPI_Send", "mpi");
  f.recv = archive.region("MPI_Recv", "mpi");
  f.isend = archive.region("MPI_Isend", "mpi");
  f.irecv = archive.region("MPI_Irecv", "mpi");
  f.wait = archive.region("MPI_Wait", "mpi");
  auto& r0 = archive.rank(0);
  r0.enter(0, f.main);
  r0.enter(100, f.work);
  r0.leave(400, f.work);
  r0.enter(1000, f.send);
  r0.send(1010, 1, TestArchive::kWorld, 5, 64);
  r0.leave(1100, f.send);
  r0.enter(2000, f.send);
  r0.send(2010, 1, TestArchive::kWorld, 5, 128);
  r0.leave(2050, f.send);
  r0.leave(5000, f.main);
  auto& r1 = archive.rank(1);
  r1.enter(0, f.main);
  r1.enter(500, f.recv);
  r1.recv(1190, 0, TestArchive::kWorld, 5, 64);
  r1.leave(1200, f.recv);
  r1.enter(2500, f.irecv);
  r1.irecv_request(2505, 77);
  r1.leave(2510, f.irecv);
  r1.enter(3000, f.recv);
  r1.recv(3010, 0, TestArchive::kWorld, 5, 128);
  r1.leave(3020, f.recv);
  r1.enter(3200, f.wait);
  r1.irecv(3690, 2, TestArchive::kWorld, 7, 32, 77);
  r1.leave(3700, f.wait);
  r1.leave(5000, f.main);
  auto& r2 = archive.rank(2);
  r2.enter(0, f.main);
  for (uint64_t i = 0; i < 100; ++i) {
    r2.enter(100 + 20 * i, f.work);
    r2.leave(110 + 20 * i, f.work);
  }
  r2.enter(3500, f.isend);
  r2.isend(3505, 1, TestArchive::kWorld, 7, 32, 9);
  r2.leave(3510, f.isend);
  r2.enter(3600, f.wait);
  r2.isend_complete(3640, 9);
  r2.leave(3650, f.wait);
  r2.leave(5000, f.main);
  archive.close();
  return f;
}

class TimelineTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { fixture_ = new Fixture(write_archive("suite")); }
  static void TearDownTestSuite() {
    fs::remove_all(fixture_->dir);
    delete fixture_;
  }
  static Fixture* fixture_;
};
Fixture* TimelineTest::fixture_ = nullptr;

TEST_F(TimelineTest, ReaderGivesExactInstancesAndMessageEnds) {
  const auto& f = *fixture_;
  ASSERT_TRUE(tl::has_trace(f.dir));
  EXPECT_FALSE(tl::has_trace(f.dir + "/nowhere"));
  const auto defs = tl::read_definitions(f.dir);
  ASSERT_EQ(defs.ranks.size(), 3U);
  EXPECT_EQ(defs.regions.at(f.send).name, "MPI_Send");
  EXPECT_EQ(defs.regions.at(f.send).kind, tl::RegionKind::kMpi);
  EXPECT_EQ(defs.regions.at(f.work).kind, tl::RegionKind::kCompute);
  EXPECT_NEAR(defs.duration, 5001 * kNs, 1e-15);

  const auto r0 = tl::read_rank(defs, 0);
  ASSERT_EQ(r0.instances.size(), 4U);
  const std::vector<std::tuple<double, double, uint32_t, uint32_t, uint32_t>> expected = {
      {0, 5000, f.main, tl::kNoInstance, 0},
      {100, 400, f.work, 0, 1},
      {1000, 1100, f.send, 0, 1},
      {2000, 2050, f.send, 0, 1}};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const auto& [b, e, region, parent, depth] = expected[i];
    EXPECT_NEAR(r0.instances[i].begin, b * kNs, 1e-15) << i;
    EXPECT_NEAR(r0.instances[i].end, e * kNs, 1e-15) << i;
    EXPECT_EQ(r0.instances[i].region, region) << i;
    EXPECT_EQ(r0.instances[i].parent, parent) << i;
    EXPECT_EQ(r0.instances[i].depth, depth) << i;
  }
  // Exclusive segments: main, work, main, send, main, send, main — covering [0,5000] exactly.
  ASSERT_EQ(r0.segments.size(), 7U);
  const std::vector<uint32_t> owners = {0, 1, 0, 2, 0, 3, 0};
  double covered = 0;
  for (std::size_t i = 0; i < owners.size(); ++i) {
    EXPECT_EQ(r0.segments[i].instance, owners[i]) << i;
    if (i > 0) {
      EXPECT_DOUBLE_EQ(r0.segments[i].begin, r0.segments[i - 1].end) << i;
    }
    covered += r0.segments[i].end - r0.segments[i].begin;
  }
  EXPECT_NEAR(covered, 5000 * kNs, 1e-15);
  // Sends: at the send call's enter, peer in world ranks.
  ASSERT_EQ(r0.sends.size(), 2U);
  EXPECT_NEAR(r0.sends[0].time, 1000 * kNs, 1e-15);
  EXPECT_EQ(r0.sends[0].peer, 1U);
  EXPECT_EQ(r0.sends[0].tag, 5U);
  EXPECT_EQ(r0.sends[0].bytes, 64U);
  EXPECT_EQ(r0.sends[0].instance, 2U);
  // Receives: at the completing call's exit, with its enter.
  const auto r1 = tl::read_rank(defs, 1);
  ASSERT_EQ(r1.receives.size(), 3U);
  EXPECT_NEAR(r1.receives[0].time, 1200 * kNs, 1e-15);
  EXPECT_NEAR(r1.receives[0].call_enter, 500 * kNs, 1e-15);
  EXPECT_NEAR(r1.receives[2].time, 3700 * kNs, 1e-15);
  EXPECT_NEAR(r1.receives[2].call_enter, 3200 * kNs, 1e-15);
  EXPECT_EQ(r1.receives[2].peer, 2U);
  EXPECT_EQ(r1.instances.at(r1.receives[2].instance).region, f.wait);
  const auto r2 = tl::read_rank(defs, 2);
  EXPECT_EQ(r2.instances.size(), 1U + 100U + 2U);
  EXPECT_THROW((void)tl::read_rank(defs, 3), InputError);
}

TEST_F(TimelineTest, ReaderAppliesClockOffsets) {
  const std::string dir = (fs::temp_directory_path() / ("orrery_timeline_clock_" + std::to_string(::getpid()))).string();
  fs::remove_all(dir);
  fs::create_directories(dir);
  {
    TestArchive archive(dir, 1);
    const uint32_t main = archive.region("main");
    archive.clock_offset(0, 0, 1000);
    archive.clock_offset(0, 4000, 1000);
    archive.rank(0).enter(0, main);
    archive.rank(0).leave(4000, main);
    archive.close();
  }
  const auto defs = tl::read_definitions(dir);
  const auto rank = tl::read_rank(defs, 0);
  ASSERT_EQ(rank.instances.size(), 1U);
  EXPECT_NEAR(rank.instances[0].begin, 1000 * kNs, 1e-15);
  EXPECT_NEAR(rank.instances[0].end, 5000 * kNs, 1e-15);
  fs::remove_all(dir);
}

/// A report whose call tree has the trace's paths (plus one for a program root the trace lacks).
std::shared_ptr<ReportData> report_for_trace() {
  report::CubeHeader h;
  h.metrics.push_back({"time", "Time", -1, "sec", "all time", ""});
  h.regions = {{"main", "", 0, "compiler"},   {"MPI_Send", "", 0, "mpi"}, {"MPI_Recv", "", 0, "mpi"},
               {"MPI_Wait", "", 0, "mpi"},    {"work", "", 0, "compiler"}};
  h.callpaths = {{-1, 0}, {0, 1}, {0, 2}, {0, 4}, {0, 3}};
  h.locations = {{0, 0, "n", "rank 0"}, {1, 0, "n", "rank 1"}, {2, 0, "n", "rank 2"}};
  const std::size_t cells = h.callpaths.size() * h.locations.size();
  return std::make_shared<ReportData>("r.h5", h, [cells](std::size_t) {
    return report::MetricValues(cells, 0.0);
  });
}

double busy_sum(const json& spans) {
  double total = 0;
  for (const auto& s : spans) total += s[4].get<double>();
  return total;
}

TEST_F(TimelineTest, FullResolutionWindowHasEveryInstanceMessageAndWait) {
  ViewerApi api(report_for_trace());
  api.set_timeline(std::make_shared<TimelineSource>(fixture_->dir));
  const json info = api.handle("timeline_info", {});
  EXPECT_TRUE(info["available"].get<bool>());
  EXPECT_EQ(info["ranks"].size(), 3U);
  EXPECT_EQ(info["regions"][fixture_->send]["kind"], "mpi");

  const json w = api.handle("timeline", {{"t0", "0"}, {"t1", "0.000005"}, {"width", "10000"}});
  ASSERT_EQ(w["rows"].size(), 3U);
  // Rank 0 at 0.5 ns per pixel: the 7 segments unmerged, each naming its instance.
  const json& spans0 = w["rows"][0]["spans"];
  ASSERT_EQ(spans0.size(), 7U);
  EXPECT_NEAR(spans0[3][0].get<double>(), 1000 * kNs, 1e-15);
  EXPECT_NEAR(spans0[3][1].get<double>(), 1100 * kNs, 1e-15);
  EXPECT_EQ(spans0[3][2], fixture_->send);
  EXPECT_EQ(spans0[3][3], 2);
  EXPECT_EQ(spans0[3][5], 1);
  // Rank 2: 100 work + 101 pieces of main around them, + isend, wait and the main between.
  EXPECT_EQ(w["rows"][2]["spans"].size(), 100U + 101U + 4U);
  // Three messages: 0→1 twice, 2→1 once, each send at its call's enter, receive at the exit.
  ASSERT_EQ(w["message_count"], 3);
  EXPECT_FALSE(w["messages_truncated"].get<bool>());
  std::vector<std::vector<double>> messages;
  for (const auto& m : w["messages"]) {
    messages.push_back({m[0].get<double>(), m[1].get<double>() / kNs, m[2].get<double>(),
                        m[3].get<double>() / kNs});
  }
  std::sort(messages.begin(), messages.end(),
            [](const auto& a, const auto& b) { return a[1] < b[1]; });
  const std::vector<std::vector<double>> expected = {
      {0, 1000, 1, 1200}, {0, 2000, 1, 3020}, {2, 3500, 1, 3700}};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    for (std::size_t k = 0; k < 4; ++k) EXPECT_NEAR(messages[i][k], expected[i][k], 1e-6) << i << k;
  }
  // Late-sender waits on rank 1 only: [500,1000] and [3200,3500]; none on 0 and 2.
  EXPECT_TRUE(w["rows"][0]["waits"].empty());
  EXPECT_TRUE(w["rows"][2]["waits"].empty());
  const json& waits = w["rows"][1]["waits"];
  ASSERT_EQ(waits.size(), 2U);
  EXPECT_NEAR(waits[0][0].get<double>(), 500 * kNs, 1e-15);
  EXPECT_NEAR(waits[0][1].get<double>(), 1000 * kNs, 1e-15);
  EXPECT_NEAR(waits[1][0].get<double>(), 3200 * kNs, 1e-15);
  EXPECT_NEAR(waits[1][1].get<double>(), 3500 * kNs, 1e-15);
}

TEST_F(TimelineTest, MergingToFewPixelsKeepsAllBusyTime) {
  ViewerApi api(report_for_trace());
  api.set_timeline(std::make_shared<TimelineSource>(fixture_->dir));
  for (const char* width : {"1", "3", "10", "64"}) {
    const json w = api.handle("timeline", {{"t0", "0"}, {"t1", "0.000005"}, {"width", width}});
    const std::size_t pixels = std::stoul(width);
    for (std::size_t r = 0; r < 3; ++r) {
      const json& spans = w["rows"][r]["spans"];
      EXPECT_NEAR(busy_sum(spans), 5000 * kNs, 1e-14) << "rank " << r << " width " << width;
      // Bounded by the width: a merged span is at least a pixel wide unless an
      // unmerged one (also at least a pixel) follows it.
      EXPECT_LE(spans.size(), 2 * pixels + 2) << "rank " << r << " width " << width;
      for (std::size_t i = 1; i < spans.size(); ++i) {
        EXPECT_GE(spans[i][0].get<double>(), spans[i - 1][1].get<double>() - 1e-15);
      }
    }
  }
  // At 10 pixels (500 ns each) rank 2's 10 ns work pieces merge, dominated by compute.
  const json w = api.handle("timeline", {{"t0", "0"}, {"t1", "0.000005"}, {"width", "10"}});
  bool merged = false;
  for (const auto& s : w["rows"][2]["spans"]) {
    if (s[3] == -1) {
      merged = true;
      EXPECT_GT(s[5].get<int>(), 1);
    }
  }
  EXPECT_TRUE(merged);
  // A window on part of the trace: only what lies in it, clipped; busy = window length.
  const json part = api.handle("timeline", {{"t0", "0.0000009"}, {"t1", "0.0000012"}, {"width", "4"},
                                            {"first_rank", "1"}, {"ranks", "1"}});
  ASSERT_EQ(part["rows"].size(), 1U);
  EXPECT_EQ(part["rows"][0]["rank"], 1);
  EXPECT_NEAR(busy_sum(part["rows"][0]["spans"]), 300 * kNs, 1e-14);
  const json& waits = part["rows"][0]["waits"];
  ASSERT_EQ(waits.size(), 1U);
  EXPECT_NEAR(waits[0][0].get<double>(), 900 * kNs, 1e-15);
  EXPECT_NEAR(waits[0][1].get<double>(), 1000 * kNs, 1e-15);
  // The message 0→1 (send 1000, receive 1200) crosses this window.
  EXPECT_EQ(part["message_count"], 1);
}

TEST_F(TimelineTest, ACallCompletingSeveralReceivesWaitsForItsLatestSender) {
  // Rank 0: MPI_Waitall [1000,3000] completes receives from 1 (sent at 1500)
  // and 2 (sent at 2500): one wait [1000,2500], not 500 + 1500 ns summed.
  const std::string dir = (fs::temp_directory_path() / ("orrery_timeline_waitall_" + std::to_string(::getpid()))).string();
  fs::remove_all(dir);
  fs::create_directories(dir);
  {
    TestArchive archive(dir, 3);
    const uint32_t main = archive.region("main");
    const uint32_t waitall = archive.region("MPI_Waitall", "mpi");
    const uint32_t send = archive.region("MPI_Send", "mpi");
    auto& r0 = archive.rank(0);
    r0.enter(0, main);
    r0.irecv_request(100, 1);
    r0.irecv_request(110, 2);
    r0.enter(1000, waitall);
    r0.irecv(2990, 1, TestArchive::kWorld, 1, 8, 1);
    r0.irecv(2995, 2, TestArchive::kWorld, 2, 8, 2);
    r0.leave(3000, waitall);
    r0.leave(4000, main);
    for (uint32_t r : {1U, 2U}) {
      auto& rank = archive.rank(r);
      const uint64_t at = r == 1 ? 1500 : 2500;
      rank.enter(0, main);
      rank.enter(at, send);
      rank.send(at + 5, 0, TestArchive::kWorld, r, 8);
      rank.leave(at + 10, send);
      rank.leave(4000, main);
    }
    archive.close();
  }
  ViewerApi api(report_for_trace());
  api.set_timeline(std::make_shared<TimelineSource>(dir));
  const json w = api.handle("timeline", {{"width", "4000"}, {"t0", "0"}, {"t1", "0.000004"}});
  EXPECT_EQ(w["message_count"], 2);
  const json& waits = w["rows"][0]["waits"];
  ASSERT_EQ(waits.size(), 1U);
  EXPECT_NEAR(waits[0][0].get<double>(), 1000 * kNs, 1e-15);
  EXPECT_NEAR(waits[0][1].get<double>(), 2500 * kNs, 1e-15);
  EXPECT_NEAR(waits[0][2].get<double>(), 1500 * kNs, 1e-15);
  fs::remove_all(dir);
}

TEST_F(TimelineTest, MessagesBeyondTheCapAreAnEvenSelection) {
  TimelineSource source(fixture_->dir);
  TimelineWindow request;
  request.t0 = 0;
  request.t1 = 5000 * kNs;
  request.ranks = 3;
  request.max_messages = 2;
  const json w = source.window(request);
  EXPECT_EQ(w["message_count"], 3);
  EXPECT_TRUE(w["messages_truncated"].get<bool>());
  ASSERT_EQ(w["messages"].size(), 2U);
  // Rank 1 receives all three (in order 0→1, 0→1, 2→1): the 1st and the 2nd of them are kept.
  EXPECT_NEAR(w["messages"][0][1].get<double>(), 1000 * kNs, 1e-15);
  EXPECT_NEAR(w["messages"][1][1].get<double>(), 2000 * kNs, 1e-15);
  request.max_messages = 1;  // the kept ones thinned on the way: still the count, one message
  const json one = source.window(request);
  EXPECT_EQ(one["message_count"], 3);
  ASSERT_EQ(one["messages"].size(), 1U);
  EXPECT_NEAR(one["messages"][0][1].get<double>(), 1000 * kNs, 1e-15);
}

TEST_F(TimelineTest, InstanceResolvesItsCallPath) {
  ViewerApi api(report_for_trace());
  api.set_timeline(std::make_shared<TimelineSource>(fixture_->dir));
  const json send = api.handle("timeline_instance", {{"rank", "0"}, {"instance", "2"}});
  EXPECT_EQ(send["name"], "MPI_Send");
  EXPECT_EQ(send["path"], json({"main", "MPI_Send"}));
  EXPECT_EQ(send["callpath"], 1);
  const json wait = api.handle("timeline_instance", {{"rank", "1"}, {"instance", "4"}});
  EXPECT_EQ(wait["name"], "MPI_Wait");
  EXPECT_EQ(wait["callpath"], 4);
  // MPI_Irecv is not in this report's call tree.
  const json irecv = api.handle("timeline_instance", {{"rank", "1"}, {"instance", "2"}});
  EXPECT_EQ(irecv["name"], "MPI_Irecv");
  EXPECT_TRUE(irecv["callpath"].is_null());
  EXPECT_THROW((void)api.handle("timeline_instance", {{"rank", "0"}, {"instance", "4"}}), UsageError);
  EXPECT_THROW((void)api.handle("timeline_instance", {{"rank", "3"}, {"instance", "0"}}), UsageError);
}

TEST_F(TimelineTest, BadParametersAndMissingTrace) {
  ViewerApi api(report_for_trace());
  api.set_timeline(std::make_shared<TimelineSource>(fixture_->dir));
  const std::vector<Params> bad = {
      {{"t0", "2"}, {"t1", "1"}},        {{"t0", "x"}},           {{"t1", "nan"}},
      {{"t1", "inf"}},                   {{"width", "0"}},        {{"width", "99999999"}},
      {{"width", "-3"}},                 {{"first_rank", "3"}},   {{"ranks", "0"}},
      {{"t0", "1"}, {"t1", "1"}},        {{"width", "12px"}}};
  for (const auto& params : bad) {
    EXPECT_THROW((void)api.handle("timeline", params), UsageError) << json(params).dump();
  }
  ViewerApi without(report_for_trace());
  without.set_timeline(nullptr, "No trace here.");
  const json info = without.handle("timeline_info", {});
  EXPECT_FALSE(info["available"].get<bool>());
  EXPECT_EQ(info["reason"], "No trace here.");
  EXPECT_THROW((void)without.handle("timeline", {}), NotFoundError);
  // A trace that cannot be read: info says why, the window is an input error (500).
  ViewerApi broken(report_for_trace());
  broken.set_timeline(std::make_shared<TimelineSource>(fixture_->dir + "/missing"));
  EXPECT_FALSE(broken.handle("timeline_info", {})["available"].get<bool>());
  EXPECT_THROW((void)broken.handle("timeline", {}), InputError);
}

TEST_F(TimelineTest, CacheBudgetDropsRanksAndReadsThemAgain) {
  auto source = std::make_shared<TimelineSource>(fixture_->dir, 1);  // one rank fits
  ViewerApi api(report_for_trace());
  api.set_timeline(source);
  const json first = api.handle("timeline", {{"width", "50"}});
  const std::size_t reads = source->reads();
  EXPECT_GE(reads, 3U);
  const json again = api.handle("timeline", {{"width", "50"}});
  EXPECT_EQ(first, again);
  EXPECT_GT(source->reads(), reads);  // dropped ranks were read again, same answer
}

TEST_F(TimelineTest, HttpAnswers404WithoutTraceAnd400ForBadParameters) {
  constexpr const char* kToken = "0123456789abcdef0123456789abcdef";
  auto with = std::make_shared<ViewerApi>(report_for_trace());
  with->set_timeline(std::make_shared<TimelineSource>(fixture_->dir));
  auto without = std::make_shared<ViewerApi>(report_for_trace());
  without->set_timeline(nullptr, "No trace for this report.");
  for (const bool has_trace : {true, false}) {
    ViewerServer server(has_trace ? with : without, {}, ServerOptions{"127.0.0.1", 0, kToken});
    const int port = server.bind();
    std::thread thread([&server] { server.run(); });
    httplib::Client client("127.0.0.1", port);
    client.set_read_timeout(10);
    const std::string token = std::string("&token=") + kToken;
    auto ok = client.Get("/api/timeline?width=20" + token);
    ASSERT_TRUE(ok);
    if (has_trace) {
      EXPECT_EQ(ok->status, 200);
      EXPECT_EQ(json::parse(ok->body)["rows"].size(), 3U);
      auto bad = client.Get("/api/timeline?width=zero" + token);
      ASSERT_TRUE(bad);
      EXPECT_EQ(bad->status, 400);
      EXPECT_NE(json::parse(bad->body)["error"].get<std::string>().find("width"), std::string::npos);
      auto no_token = client.Get("/api/timeline?width=20");
      ASSERT_TRUE(no_token);
      EXPECT_EQ(no_token->status, 403);
    } else {
      EXPECT_EQ(ok->status, 404);
      EXPECT_EQ(json::parse(ok->body)["error"], "No trace for this report.");
    }
    server.stop();
    thread.join();
  }
}


// --- Honest aggregation, call-path marks, hover details, trace views ---

TEST_F(TimelineTest, MergedSpansCarryEachKindsExactTime) {
  ViewerApi api(report_for_trace());
  api.set_timeline(std::make_shared<TimelineSource>(fixture_->dir));
  // At 10 pixels (500 ns each) rank 2's first pixels merge work (compute) and main.
  const json w = api.handle("timeline", {{"t0", "0"}, {"t1", "0.000005"}, {"width", "10"}});
  for (const auto& row : w["rows"]) {
    for (const auto& s : row["spans"]) {
      if (s[3] != -1) continue;
      ASSERT_EQ(s.size(), 7U);
      double parts = 0;
      for (const auto& part : s[6]) parts += part[1].get<double>();
      // The kinds' times add up to the busy time, never to more than the extent.
      EXPECT_NEAR(parts, s[4].get<double>(), 1e-15);
      EXPECT_LE(parts, s[1].get<double>() - s[0].get<double>() + 1e-15);
    }
  }
  // One pixel over the whole run on rank 1: MPI 700+10+20+500 = 1230 ns, compute the rest.
  const json one = api.handle("timeline", {{"t0", "0"}, {"t1", "0.000005"}, {"width", "1"},
                                           {"first_rank", "1"}, {"ranks", "1"}});
  const json& spans = one["rows"][0]["spans"];
  ASSERT_EQ(spans.size(), 1U);
  double mpi = 0;
  double compute = 0;
  for (const auto& part : spans[0][6]) {
    const auto region = part[0].get<uint32_t>();
    (region == fixture_->main || region == fixture_->work ? compute : mpi) += part[1].get<double>();
  }
  EXPECT_NEAR(mpi, 1230 * kNs, 1e-15);
  EXPECT_NEAR(compute, 3770 * kNs, 1e-15);
  // Its waits merge into one piece whose total is the real waiting (800 ns), not its extent (3000 ns).
  const json& waits = one["rows"][0]["waits"];
  ASSERT_EQ(waits.size(), 1U);
  EXPECT_NEAR(waits[0][2].get<double>(), 800 * kNs, 1e-15);
  EXPECT_NEAR(waits[0][1].get<double>() - waits[0][0].get<double>(), 3000 * kNs, 1e-15);
}

TEST_F(TimelineTest, CallpathMarksItsInstancesOnEveryRank) {
  ViewerApi api(report_for_trace());
  api.set_timeline(std::make_shared<TimelineSource>(fixture_->dir));
  // Call path 1 is main/MPI_Send: rank 0's two sends; nothing elsewhere.
  const json w = api.handle("timeline", {{"t0", "0"}, {"t1", "0.000005"}, {"width", "10000"}, {"callpath", "1"}});
  const json& marks = w["rows"][0]["marks"];
  ASSERT_EQ(marks.size(), 2U);
  EXPECT_NEAR(marks[0][0].get<double>(), 1000 * kNs, 1e-15);
  EXPECT_NEAR(marks[1][2].get<double>(), 50 * kNs, 1e-15);
  EXPECT_TRUE(w["rows"][1]["marks"].empty());
  // Without the parameter there are no marks; a bad row is a usage error.
  EXPECT_FALSE(api.handle("timeline", {{"width", "10"}})["rows"][0].contains("marks"));
  EXPECT_THROW((void)api.handle("timeline", {{"callpath", "99"}}), UsageError);
}

TEST_F(TimelineTest, InstanceNamesPartnersBytesTagsAndItsWait) {
  ViewerApi api(report_for_trace());
  api.set_timeline(std::make_shared<TimelineSource>(fixture_->dir));
  const json send = api.handle("timeline_instance", {{"rank", "0"}, {"instance", "2"}});
  EXPECT_EQ(send["sends"]["count"], 1);
  EXPECT_EQ(send["sends"]["list"][0], json({1, 64, 5}));
  EXPECT_EQ(send["wait"], 0.0);
  EXPECT_TRUE(send["wait_kind"].is_null());
  // Rank 1's MPI_Wait completes the receive from rank 2 (tag 7, 32 bytes) and waited 300 ns for it.
  const json wait = api.handle("timeline_instance", {{"rank", "1"}, {"instance", "4"}});
  EXPECT_EQ(wait["receives"]["list"][0], json({2, 32, 7}));
  EXPECT_EQ(wait["wait_kind"], "Late Sender");
  EXPECT_EQ(wait["wait_sender"], 2);
  EXPECT_NEAR(wait["wait"].get<double>(), 300 * kNs, 1e-15);
}

TEST_F(TimelineTest, WorstInstanceIsTheLongestWaitOfTheCallpath) {
  ViewerApi api(report_for_trace());
  api.set_timeline(std::make_shared<TimelineSource>(fixture_->dir));
  // main/MPI_Recv (row 2) on rank 1: the first receive waited 500 ns, the second none.
  const json worst = api.handle("worst_instance", {{"rank", "1"}, {"callpath", "2"}});
  ASSERT_TRUE(worst["found"].get<bool>());
  EXPECT_NEAR(worst["begin"].get<double>(), 500 * kNs, 1e-15);
  EXPECT_NEAR(worst["end"].get<double>(), 1200 * kNs, 1e-15);
  // main (row 0) on rank 1 contains both waits: the longer (500 ns) one wins.
  EXPECT_NEAR(api.handle("worst_instance", {{"rank", "1"}, {"callpath", "0"}})["begin"].get<double>(), 500 * kNs, 1e-15);
  // Without waits: the longest instance (rank 0's first send, 100 ns).
  const json send = api.handle("worst_instance", {{"rank", "0"}, {"callpath", "1"}});
  EXPECT_NEAR(send["end"].get<double>() - send["begin"].get<double>(), 100 * kNs, 1e-15);
  EXPECT_FALSE(api.handle("worst_instance", {{"rank", "2"}, {"callpath", "1"}})["found"].get<bool>());
}

TEST_F(TimelineTest, UtilizationCountsRanksPerKindAndTheConcurrencyProfile) {
  ViewerApi api(report_for_trace());
  api.set_timeline(std::make_shared<TimelineSource>(fixture_->dir));
  const json u = api.handle("utilization", {{"t0", "0"}, {"t1", "0.000005"}, {"bins", "5"}});
  ASSERT_EQ(u["counts"]["compute"].size(), 5U);
  // [0,1000): ranks 0 and 2 compute throughout, rank 1 half (then it is in MPI_Recv).
  EXPECT_NEAR(u["counts"]["compute"][0].get<double>(), 2.5, 1e-9);
  EXPECT_NEAR(u["counts"]["mpi"][0].get<double>(), 0.5, 1e-9);
  // [3000,4000): MPI 20 + 500 (rank 1) + 10 + 50 (rank 2) ns.
  EXPECT_NEAR(u["counts"]["mpi"][3].get<double>(), 0.58, 1e-9);
  EXPECT_NEAR(u["counts"]["compute"][3].get<double>(), 2.42, 1e-9);
  // Concurrency: two ranks in MPI at once for 100 + 10 + 50 ns; one for 1120 ns.
  const json& mpi = u["concurrency"]["mpi"];
  ASSERT_EQ(mpi.size(), 4U);
  EXPECT_NEAR(mpi[2].get<double>(), 160 * kNs, 1e-15);
  EXPECT_NEAR(mpi[1].get<double>(), 1120 * kNs, 1e-15);
  EXPECT_NEAR(mpi[0].get<double>(), 3720 * kNs, 1e-15);
  EXPECT_NEAR(mpi[3].get<double>(), 0.0, 1e-15);
  // Every moment is counted once per kind.
  double total = 0;
  for (const auto& t : u["concurrency"]["compute"]) total += t.get<double>();
  EXPECT_NEAR(total, 5000 * kNs, 1e-15);
  EXPECT_THROW((void)api.handle("utilization", {{"bins", "0"}}), UsageError);
}

TEST_F(TimelineTest, CommunicationMatrixHasBytesMessagesAndLateSenderPerPair) {
  ViewerApi api(report_for_trace());
  api.set_timeline(std::make_shared<TimelineSource>(fixture_->dir));
  const auto key = [](int sender, int receiver) { return std::make_pair(sender, receiver); };
  const auto cells = [](const json& answer) {
    std::map<std::pair<int, int>, json> out;
    for (const auto& c : answer["cells"]) out[{c[0].get<int>(), c[1].get<int>()}] = c;
    return out;
  };
  const json all = api.handle("communication", {});
  auto m = cells(all);
  ASSERT_EQ(m.size(), 2U);
  EXPECT_EQ(m[key(0, 1)][2], 192);  // 64 + 128 bytes
  EXPECT_EQ(m[key(0, 1)][3], 2);
  EXPECT_NEAR(m[key(0, 1)][4].get<double>(), 500 * kNs, 1e-15);
  EXPECT_EQ(m[key(2, 1)][2], 32);
  EXPECT_NEAR(m[key(2, 1)][4].get<double>(), 300 * kNs, 1e-15);
  // Sizes: 32 in [32,63], 64 in [64,127], 128 in [128,255], one message each.
  ASSERT_EQ(all["sizes"].size(), 3U);
  EXPECT_EQ(all["sizes"][0]["low"], 32);
  EXPECT_EQ(all["sizes"][2]["high"], 255);
  // A time window: the first send only.
  m = cells(api.handle("communication", {{"t0", "0"}, {"t1", "0.0000015"}}));
  EXPECT_EQ(m[key(0, 1)][2], 64);
  EXPECT_EQ(m.count(key(2, 1)), 0U);
  // A call path: main/MPI_Send (row 1) has rank 0's sends and no receiving call.
  m = cells(api.handle("communication", {{"callpath", "1"}}));
  ASSERT_EQ(m.size(), 1U);
  EXPECT_EQ(m[key(0, 1)][2], 192);
  EXPECT_EQ(m[key(0, 1)][4], 0.0);
}

TEST_F(TimelineTest, ATraceOfAnotherRunIsFlagged) {
  ViewerApi same(report_for_trace());
  same.set_timeline(std::make_shared<TimelineSource>(fixture_->dir));
  EXPECT_FALSE(same.handle("timeline_info", {}).contains("warning"));
  // A report of two ranks: the trace has three.
  report::CubeHeader h = report_for_trace()->header();
  h.locations.pop_back();
  const std::size_t cells = h.callpaths.size() * h.locations.size();
  ViewerApi other(std::make_shared<ReportData>("r.h5", h, [cells](std::size_t) { return report::MetricValues(cells, 0.0); }));
  other.set_timeline(std::make_shared<TimelineSource>(fixture_->dir));
  const json info = other.handle("timeline_info", {});
  EXPECT_TRUE(info["available"].get<bool>());
  EXPECT_NE(info["warning"].get<std::string>().find("3 ranks, the report 2"), std::string::npos) << info["warning"];
}

TEST_F(TimelineTest, TraceViewsWithoutTraceAre404) {
  ViewerApi api(report_for_trace());
  EXPECT_THROW((void)api.handle("utilization", {}), NotFoundError);
  EXPECT_THROW((void)api.handle("communication", {}), NotFoundError);
  EXPECT_THROW((void)api.handle("worst_instance", {{"rank", "0"}, {"callpath", "0"}}), NotFoundError);
  // The findings and facts need no trace.
  EXPECT_FALSE(api.handle("findings", {})["trace"].get<bool>());
  EXPECT_EQ(api.handle("facts", {})["runs"].size(), 1U);
}

}  // namespace
}  // namespace orrery::viewer

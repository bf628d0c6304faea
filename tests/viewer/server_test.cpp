// The HTTP server on 127.0.0.1: the token is required, requests cannot name
// files, a report that fails to read gives a readable JSON error, and many
// concurrent clients get correct answers.

#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "fixture_cube.h"
#include "orrery/error.h"
#include "server.h"

namespace orrery::viewer {
namespace {

const std::vector<Asset> kTestAssets = {
    {"index.html", "text/html; charset=utf-8", "<!doctype html><p>viewer page</p>"},
    {"assets/app.js", "text/javascript", "console.log('app');"},
};

class ServerTest : public ::testing::Test {
 protected:
  void start(std::shared_ptr<ViewerApi> api, std::vector<Asset> assets = kTestAssets) {
    server_ = std::make_unique<ViewerServer>(std::move(api), std::move(assets),
                                             ServerOptions{"127.0.0.1", 0, kToken});
    port_ = server_->bind();
    thread_ = std::thread([this] { server_->run(); });
  }
  void SetUp() override {
    cube_ = testing::make_fixture_cube({.callpaths = 100, .locations = 8, .seed = 4, .scale = 1.0});
    auto data = std::make_shared<ReportData>("fixture.h5", cube_.header,
                                             [this](std::size_t m) { return cube_.values[m]; });
    start(std::make_shared<ViewerApi>(data));
  }
  void TearDown() override {
    server_->stop();
    thread_.join();
  }
  [[nodiscard]] httplib::Client client() const {
    httplib::Client c("127.0.0.1", port_);
    c.set_connection_timeout(5);
    c.set_read_timeout(10);
    return c;
  }
  static std::string with_token(const std::string& path) {
    return path + (path.find('?') == std::string::npos ? "?" : "&") + "token=" + kToken;
  }

  static constexpr const char* kToken = "0123456789abcdef0123456789abcdef";
  report::Cube cube_;
  std::unique_ptr<ViewerServer> server_;
  std::thread thread_;
  int port_ = 0;
};

TEST_F(ServerTest, MissingOrWrongTokenIsRefused) {
  auto c = client();
  for (const std::string path : {"/", "/index.html", "/assets/app.js", "/api/header",
                                 "/api/metrics", "/?token=", "/?token=0123456789abcdef0123456789abcdee",
                                 "/api/header?token=0123456789ABCDEF0123456789ABCDEF"}) {
    const auto res = c.Get(path.c_str());
    ASSERT_TRUE(res) << path;
    EXPECT_EQ(res->status, 403) << path;
    EXPECT_EQ(res->body.find("viewer page"), std::string::npos) << path;
  }
  const auto res = c.Get("/api/header", {{"X-Orrery-Token", "wrong"}});
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 403);
  EXPECT_NE(res->body.find("\"error\""), std::string::npos);  // API errors are JSON
}

TEST_F(ServerTest, TokenInQueryHeaderOrCookieIsAccepted) {
  auto c = client();
  auto page = c.Get(with_token("/").c_str());
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_NE(page->body.find("viewer page"), std::string::npos);
  const std::string cookie = page->get_header_value("Set-Cookie");
  EXPECT_NE(cookie.find(kToken), std::string::npos);
  EXPECT_NE(cookie.find("HttpOnly"), std::string::npos);
  const std::string pair = cookie.substr(0, cookie.find(';'));
  auto script = c.Get("/assets/app.js", {{"Cookie", "other=1; " + pair}});
  ASSERT_TRUE(script);
  EXPECT_EQ(script->status, 200);
  EXPECT_EQ(script->body, "console.log('app');");
  auto api = c.Get("/api/header", {{"X-Orrery-Token", kToken}});
  ASSERT_TRUE(api);
  EXPECT_EQ(api->status, 200);
  const auto header = nlohmann::json::parse(api->body);
  EXPECT_EQ(header["metrics"].size(), cube_.header.metrics.size());
  EXPECT_EQ(header["callpaths"]["parent"].size(), cube_.header.callpaths.size());
}

TEST_F(ServerTest, PathTraversalAndUnknownPathsAreRefused) {
  auto c = client();
  for (const std::string path :
       {"/../../../../etc/passwd", "/assets/../../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd",
        "/assets/%2e%2e%2f%2e%2e%2fetc%2fpasswd", "/etc/passwd", "//etc/passwd",
        "/assets/..%2fapp.js", "/CMakeCache.txt", "/index.html/..", "/api/../../etc/passwd"}) {
    const auto res = c.Get(with_token(path).c_str());
    if (!res) continue;  // refusing the connection is refusing too
    EXPECT_TRUE(res->status == 400 || res->status == 404) << path << " -> " << res->status;
    EXPECT_EQ(res->body.find("root:"), std::string::npos) << path;
  }
  // Parameters never name files either: only row numbers are understood.
  const auto res = c.Get(with_token("/api/callpaths?metric=../../etc/passwd").c_str());
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 400);
}

TEST_F(ServerTest, OversizedAndMalformedQueriesAreRefusedBeforeAnyWork) {
  auto c = client();
  const std::string huge = with_token("/api/callpaths?metric=0&pad=" + std::string(20000, 'x'));
  const auto too_large = c.Get(huge.c_str());
  ASSERT_TRUE(too_large);
  EXPECT_EQ(too_large->status, 414);  // URI Too Long, before any handler runs
  const auto body = c.Post(with_token("/api/header").c_str(), std::string(100000, 'x'), "text/plain");
  ASSERT_TRUE(body);
  EXPECT_EQ(body->status, 413);
  for (const std::string query :
       {"/api/callpaths?metric=99999999", "/api/callpaths?metric=-1",
        "/api/callpaths?metric=1e400", "/api/locations?metric=0&callpath=18446744073709551616"}) {
    const auto res = c.Get(with_token(query).c_str());
    ASSERT_TRUE(res) << query;
    EXPECT_TRUE(res->status == 400 || res->status == 404) << query << " -> " << res->status;
  }
  // A query of normal size is still answered.
  const auto fine = c.Get(with_token("/api/callpaths?metric=0").c_str());
  ASSERT_TRUE(fine);
  EXPECT_EQ(fine->status, 200);
}

TEST_F(ServerTest, ManyConcurrentRequestsAreAnsweredCorrectly) {
  const std::size_t n_loc = cube_.header.locations.size();
  std::atomic<int> wrong{0};
  std::atomic<int> answered{0};
  std::vector<std::thread> clients;
  for (int t = 0; t < 16; ++t) {
    clients.emplace_back([&, t] {
      auto c = client();
      for (int i = 0; i < 25; ++i) {
        const std::size_t callpath = static_cast<std::size_t>((t * 25 + i) % 100);
        const auto res = c.Get(with_token("/api/locations?metric=1&metric_incl=0&callpath_incl=0&callpath=" +
                                          std::to_string(callpath)).c_str());
        if (!res || res->status != 200) {
          ++wrong;
          continue;
        }
        const auto values = nlohmann::json::parse(res->body)["values"];
        for (std::size_t l = 0; l < n_loc; ++l) {
          if (values[l].get<double>() != cube_.values[1][callpath * n_loc + l]) ++wrong;
        }
        ++answered;
      }
    });
  }
  for (auto& t : clients) t.join();
  EXPECT_EQ(answered.load(), 16 * 25);
  EXPECT_EQ(wrong.load(), 0);
}

TEST_F(ServerTest, ResponsesCarryHeadersThatKeepTheTokenPrivate) {
  auto c = client();
  const auto res = c.Get(with_token("/").c_str());
  ASSERT_TRUE(res);
  EXPECT_EQ(res->get_header_value("Referrer-Policy"), "no-referrer");
  EXPECT_NE(res->get_header_value("Content-Security-Policy").find("default-src 'self'"),
            std::string::npos);
}

class BrokenReportServerTest : public ServerTest {
 protected:
  void SetUp() override {
    cube_ = testing::make_fixture_cube({});
    auto data = std::make_shared<ReportData>("gone.h5", cube_.header, [](std::size_t) -> report::MetricValues {
      throw InputError("gone.h5: cannot read /values/time: file truncated");
    });
    start(std::make_shared<ViewerApi>(data));
  }
};

TEST_F(BrokenReportServerTest, UnreadableValuesGiveAReadableJsonError) {
  auto c = client();
  const auto header = c.Get(with_token("/api/header").c_str());
  ASSERT_TRUE(header);
  EXPECT_EQ(header->status, 200);  // the header was read at start
  const auto res = c.Get(with_token("/api/callpaths?metric=0").c_str());
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 500);
  const auto body = nlohmann::json::parse(res->body);
  EXPECT_EQ(body["error"], "gone.h5: cannot read /values/time: file truncated");
}

// Two runs of different sizes (2 and 3 ranks, each with a metric the other
// lacks) over HTTP: answers cover every process of the other run.
class ComparingServerTest : public ServerTest {
 protected:
  void SetUp() override {
    cube_ = testing::make_fixture_cube({.callpaths = 40, .locations = 2, .seed = 4, .scale = 1.0});
    other_ = testing::make_fixture_cube({.callpaths = 50, .locations = 3, .seed = 9, .scale = 2.0});
    testing::drop_metric(cube_, "visits");
    testing::drop_metric(other_, "overhead");
    auto mine = std::make_shared<ReportData>("a.h5", cube_.header, [this](std::size_t m) { return cube_.values[m]; });
    auto theirs = std::make_shared<ReportData>("b.h5", other_.header, [this](std::size_t m) { return other_.values[m]; });
    start(std::make_shared<ViewerApi>(mine, theirs));
  }
  // A metric's values summed over every call path, per location of `cube`.
  static std::vector<double> per_location(const report::Cube& cube, const std::string& metric) {
    std::vector<double> sums(cube.header.locations.size(), 0.0);
    for (std::size_t m = 0; m < cube.header.metrics.size(); ++m) {
      if (cube.header.metrics[m].name != metric) continue;
      for (std::size_t i = 0; i < cube.values[m].size(); ++i) sums[i % sums.size()] += cube.values[m][i];
    }
    return sums;
  }
  [[nodiscard]] nlohmann::json get(const std::string& path) const {
    auto c = client();
    const auto res = c.Get(with_token(path).c_str());
    EXPECT_TRUE(res && res->status == 200) << path;
    return res ? nlohmann::json::parse(res->body) : nlohmann::json{};
  }
  report::Cube other_;
};

TEST_F(ComparingServerTest, EveryProcessAndMetricOfTheOtherRunIsAnswered) {
  const auto header = get("/api/header");
  ASSERT_EQ(header["locations"].size(), 3U);
  EXPECT_EQ(header["locations"][2]["other_only"], true);
  std::size_t visits = 0;
  while (visits < header["metrics"].size() && header["metrics"][visits]["name"] != "visits") ++visits;
  ASSERT_LT(visits, header["metrics"].size());
  EXPECT_EQ(header["metrics"][visits]["other_only"], true);
  EXPECT_EQ(header["metrics"][visits]["parent"], -1);
  // A metric only the other run has, over the whole program ("all": the fixture has one root).
  const auto per_process = get("/api/locations?metric=" + std::to_string(visits) + "&callpath=all");
  const auto expected = per_location(other_, "visits");
  double other_total = 0.0;
  for (std::size_t l = 0; l < 3; ++l) {
    EXPECT_EQ(per_process["values"][l].get<double>(), 0.0);
    EXPECT_DOUBLE_EQ(per_process["other"][l].get<double>(), expected[l]);
    other_total += expected[l];
  }
  const auto calls = get("/api/callpaths?metric=" + std::to_string(visits));
  EXPECT_DOUBLE_EQ(calls["other"]["inclusive"][0].get<double>(), other_total);
  EXPECT_EQ(calls["inclusive"][0].get<double>(), 0.0);
  const auto totals = get("/api/metrics");
  EXPECT_DOUBLE_EQ(totals["other"][visits].get<double>(), other_total);
  // A metric only this run has: the other run is 0 everywhere, this run's 2 processes as stored.
  std::size_t overhead = 0;
  while (header["metrics"][overhead]["name"] != "overhead") ++overhead;
  const auto mine = get("/api/locations?metric=" + std::to_string(overhead) + "&callpath=all");
  const auto mine_expected = per_location(cube_, "overhead");
  for (std::size_t l = 0; l < 3; ++l) {
    EXPECT_DOUBLE_EQ(mine["values"][l].get<double>(), l < 2 ? mine_expected[l] : 0.0);
    EXPECT_EQ(mine["other"][l].get<double>(), 0.0);
  }
}

TEST(ViewerEmbeddedAssets, ThePageIsEmbedded) {
  const auto& assets = embedded_assets();
  bool has_index = false;
  for (const auto& asset : assets) {
    if (asset.path == "index.html") {
      has_index = true;
      EXPECT_NE(asset.body.find("<html"), std::string_view::npos);
    }
    EXPECT_EQ(asset.path.find(".."), std::string_view::npos);
  }
  EXPECT_TRUE(has_index);
}

}  // namespace
}  // namespace orrery::viewer

// timeline_summary_bench EXP [--events-path]: the timeline summary of a big
// trace (bench/viewer/timeline_bench.sh writes one with scaling_trace).
// Prints the summary's build time and size, the time of typical windows at
// 1,600 px over all ranks (whole run, 1 % and 0.01 % windows, zoom steps;
// target <= 200 ms each), and per window the physical limit: reading the
// bins it needs from the page cache (summary windows) or streaming the same
// events with a visitor that does nothing (windows read from checkpoints).
// --events-path also times, last, the path without the summary (every rank
// read into memory, within the default 1 GiB rank cache).

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "orrery/trace/timeline_stream.h"
#include "timeline_data.h"
#include "timeline_summary.h"
#include "timeline_summary_view.h"

namespace {

using namespace orrery::viewer;
namespace tl = orrery::analyzer::timeline;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

long status_kib(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field, 0) == 0) return std::stol(line.substr(std::strlen(field) + 1));
  }
  return -1;
}

/// Streams events and does nothing with them but stop after `until`.
class Nothing final : public tl::EventVisitor {
 public:
  explicit Nothing(int64_t until) : until_(until) {}
  void enter(uint64_t, int64_t t, uint32_t) override { last_ = t; }
  void leave(uint64_t, int64_t t) override { last_ = t; }
  void message(uint64_t, int64_t t, bool, uint32_t, uint32_t, uint32_t, uint64_t) override { last_ = t; }
  [[nodiscard]] bool done() const override { return last_ > until_; }

 private:
  int64_t until_;
  int64_t last_ = INT64_MIN;
};

/// The floor of a window: touching the bins it needs, or streaming its events doing nothing.
double physical_limit(const TimelineSummary& summary, const tl::Definitions& defs, double t0, double t1,
                      uint32_t width, std::size_t& bytes) {
  const auto start = Clock::now();
  const auto level = summary_level(summary, (t1 - t0) / width);
  uint64_t sink = 0;
  bytes = 0;
  for (uint32_t r = 0; r < defs.ranks.size(); ++r) {
    if (level) {
      const auto bins = summary.bins(r, *level);
      const double bin = summary.bin_seconds(*level);
      const auto first = std::min(bins.size(), static_cast<std::size_t>(t0 / bin));
      const auto end = std::min(bins.size(), static_cast<std::size_t>(t1 / bin) + 1);
      for (std::size_t k = first; k < end; ++k) sink += bins[k].time[0] + bins[k].wait;
      bytes += (end - first) * sizeof(SummaryBin);
    } else {
      const auto checkpoints = summary.checkpoints(r);
      const auto from = static_cast<int64_t>(t0 * static_cast<double>(defs.resolution));
      auto it = std::upper_bound(checkpoints.begin(), checkpoints.end(), from,
                                 [](int64_t t, const SummaryCheckpoint& c) { return t < c.ticks; });
      if (it != checkpoints.begin()) --it;
      Nothing nothing(static_cast<int64_t>(t1 * static_cast<double>(defs.resolution)));
      tl::stream_rank(defs, r, nothing, it == checkpoints.begin() ? 0 : it->position);
    }
  }
  if (sink == 1) std::printf(" ");  // keeps the reads
  return ms_since(start);
}

void view(TimelineSource& source, const TimelineSummary& summary, const char* what, double t0, double t1) {
  const auto& defs = source.definitions();
  TimelineWindow request;
  request.t0 = t0;
  request.t1 = t1;
  request.width = 1600;
  request.ranks = static_cast<uint32_t>(defs.ranks.size());
  std::vector<double> times;
  nlohmann::json answer;
  for (int i = 0; i < 3; ++i) {
    const auto start = Clock::now();
    answer = source.window(request);
    const std::string body = answer.dump();
    times.push_back(ms_since(start));
  }
  std::sort(times.begin(), times.end());
  std::size_t bytes = 0;
  const double floor = physical_limit(summary, defs, t0, t1, request.width, bytes);
  const auto& from = answer["source"];
  std::printf("%-28s %8.1f ms (min %6.1f)  %-7s %s  limit %6.1f ms (%s)  %s\n", what, times[1], times[0],
              from["from"].get<std::string>().c_str(),
              from.contains("level") ? ("level " + std::to_string(from["level"].get<int>())).c_str()
                                     : (std::to_string(from["events_read"].get<uint64_t>()) + " events").c_str(),
              floor, bytes > 0 ? (std::to_string(bytes / 1024) + " KiB of bins").c_str() : "same events, no work",
              times[1] <= 200 ? "ok" : "OVER 200 ms");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: timeline_summary_bench EXP [--events-path]\n");
    return 2;
  }
  const std::string experiment = argv[1];
  const bool events_path = argc > 2 && std::string(argv[2]) == "--events-path";
  try {
    const long rss_start = status_kib("VmRSS");
    const tl::Definitions defs = tl::read_definitions(experiment);
    std::error_code ignored;
    fs::remove(fs::path(experiment) / kSummaryFile, ignored);
    auto start = Clock::now();
    TimelineSource source(experiment);
    source.set_summary_mode(SummaryMode::kAlways);
    const auto summary = source.summary();
    if (!summary) {
      std::fprintf(stderr, "no summary: %s\n", source.summary_status().dump().c_str());
      return 1;
    }
    const double build = ms_since(start);
    const SummaryHeader& h = summary->header();
    std::printf("trace: %u ranks, %llu events, %.3f s\n", h.ranks, static_cast<unsigned long long>(h.events),
                defs.duration);
    std::printf("summary: built in %.1f s, %.1f MiB (%.1f bytes per event), %u levels, %u base bins per rank\n",
                build / 1000, static_cast<double>(summary->bytes()) / (1 << 20),
                static_cast<double>(summary->bytes()) / static_cast<double>(h.events), h.levels, h.base_bins);
    std::printf("memory: RSS %ld MiB after the build (peak %ld MiB, %ld MiB at start)\n",
                status_kib("VmRSS") / 1024, status_kib("VmHWM") / 1024, rss_start / 1024);
    start = Clock::now();
    TimelineSource reopened(experiment);
    reopened.set_summary_mode(SummaryMode::kAlways);
    const auto checked = reopened.summary();
    std::printf("reopen (fingerprint + checksum of the whole file): %.1f ms\n", ms_since(start));
    const double d = defs.duration;
    view(reopened, *checked, "whole run", 0, d);
    view(reopened, *checked, "1 % window at 10 %", d * 0.10, d * 0.11);
    view(reopened, *checked, "1 % window at 63 %", d * 0.63, d * 0.64);
    view(reopened, *checked, "0.01 % window at 50 %", d * 0.5, d * 0.5001);
    view(reopened, *checked, "0.01 % window at 97 %", d * 0.97, d * 0.9701);
    double half = d / 2;
    for (int step = 1; step <= 12; ++step) {
      half /= 2;
      const std::string name = "zoom x" + std::to_string(1 << step) + " around 40 %";
      view(reopened, *checked, name.c_str(), std::max(0.0, d * 0.4 - half), d * 0.4 + half);
    }
    std::printf("memory: RSS %ld MiB after the views (mapped summary pages count as RSS)\n", status_kib("VmRSS") / 1024);
    if (events_path) {
      TimelineSource today(experiment);
      today.set_summary_mode(SummaryMode::kNever);
      TimelineWindow request;
      request.t1 = today.definitions().duration;
      request.width = 1600;
      request.ranks = static_cast<uint32_t>(today.definitions().ranks.size());
      start = Clock::now();
      (void)today.window(request).dump();
      std::printf("events path (today): whole run first %.0f ms", ms_since(start));
      start = Clock::now();
      (void)today.window(request).dump();
      std::printf(", again %.0f ms; ranks read %zu, cached %.0f MiB, peak RSS of the process %.0f MiB\n", ms_since(start),
                  today.reads(), static_cast<double>(today.cached_bytes()) / (1 << 20),
                  static_cast<double>(status_kib("VmHWM")) / 1024);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "timeline_summary_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}

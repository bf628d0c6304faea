// `orrery view REPORT [OTHER]`: opens the report(s) through orrery::report,
// starts the server on loopback and prints the address with its token.

#include <pthread.h>
#include <spawn.h>
#include <sys/wait.h>

#include <atomic>
#include <chrono>
#include <csignal>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <tuple>

#include "orrery/viewer/commands.h"
#include "api.h"
#include "crash_guard.h"
#include "group_inputs.h"
#include "group_view.h"
#include "assets.h"
#include "orrery/allocation_limit.h"
#include "orrery/error.h"
#include "orrery/report/hdf5_io.h"
#include "server.h"
#include "timeline_data.h"
#include "orrery/trace/timeline.h"
#include "root_cause_source.h"
#include "run_analyses.h"
#include "run_facts.h"
#include "token.h"

extern char** environ;  // NOLINT: POSIX

namespace orrery::viewer {
namespace {

std::shared_ptr<ReportData> open_report(const std::string& path) {
  // HDF5 1.10 can crash inside itself on a damaged file (tests/corpus/):
  // the guard turns that into the tools' one-line message and exit 1.
  report::tools::note_report(path);
  auto reader = std::make_shared<report::CubeReader>(path);
  report::CubeHeader header = reader->header();
  auto loader = [reader](std::size_t metric_row) { return reader->read_metric(metric_row); };
  // Reports are usually EXP/report.h5, so the experiment directory names them.
  const std::filesystem::path file(path);
  const std::string directory = std::filesystem::absolute(file).parent_path().filename().string();
  std::string label = directory.empty() ? file.filename().string()
                                        : directory + "/" + file.filename().string();
  return std::make_shared<ReportData>(std::move(label), std::move(header), std::move(loader));
}

// Best effort: a desktop session gets the page opened; anywhere else the
// printed address is what the user follows.
void open_browser(const std::string& url) {
  if (std::getenv("DISPLAY") == nullptr && std::getenv("WAYLAND_DISPLAY") == nullptr) return;
  std::string program = "xdg-open";
  std::string argument = url;
  char* argv[] = {program.data(), argument.data(), nullptr};
  pid_t pid = 0;
  if (posix_spawnp(&pid, "xdg-open", nullptr, nullptr, argv, environ) == 0) {
    std::thread([pid] { waitpid(pid, nullptr, 0); }).detach();
  }
}

// Ctrl-C and SIGTERM stop the server cleanly: the signals are blocked in
// every thread and one thread waits for them, so no handler runs in an
// arbitrary thread's context. A signal can come before the server listens
// (the address is printed first): stopping a server that does not listen yet
// does nothing, so the waiter repeats the stop until serve() is done.
class StopOnSignal {
 public:
  explicit StopOnSignal(ViewerServer& server) {
    sigemptyset(&signals_);
    sigaddset(&signals_, SIGINT);
    sigaddset(&signals_, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &signals_, nullptr);
    waiter_ = std::thread([this, &server] {
      int signal = 0;
      sigwait(&signals_, &signal);
      while (!done_) {
        server.stop();
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    });
  }
  ~StopOnSignal() {
    done_ = true;
    pthread_kill(waiter_.native_handle(), SIGTERM);
    waiter_.join();
  }
  StopOnSignal(const StopOnSignal&) = delete;
  StopOnSignal& operator=(const StopOnSignal&) = delete;

 private:
  sigset_t signals_{};
  std::atomic<bool> done_{false};
  std::thread waiter_;
};

/// Where the report's trace is: `--trace`, else the report's own directory,
/// else its `experiment` attribute; empty (with the reason) if nowhere.
std::string find_trace(const std::string& report_path, const std::string& experiment_attribute,
                       const std::string& explicit_trace, std::string& why_none) {
  namespace tl = analyzer::timeline;
  if (!explicit_trace.empty()) {
    if (!tl::has_trace(explicit_trace)) {
      throw InputError("--trace " + explicit_trace + ": no OTF2 archive (traces.otf2) there");
    }
    return explicit_trace;
  }
  const std::string own = std::filesystem::absolute(report_path).parent_path().string();
  if (tl::has_trace(own)) return own;
  if (!experiment_attribute.empty() && tl::has_trace(experiment_attribute)) {
    return experiment_attribute;
  }
  why_none = "No trace next to the report: " + own + " has no traces.otf2" +
             (experiment_attribute.empty() ? std::string()
                                           : " (nor has the report's experiment " +
                                                 experiment_attribute + ")") +
             ". Start orrery view with --trace EXP to show the timeline.";
  return {};
}

/// `--baseline A1 A2 … --candidate B1 B2 …`: groups of repeated runs.
struct GroupOptions {
  std::vector<std::string> baseline;
  std::vector<std::string> candidate;
  report::GroupTest test;
  bool allow_different_programs = false;
  [[nodiscard]] bool given() const { return !baseline.empty() || !candidate.empty(); }
};

/// `orrery view --build-summary`: the trace's timeline summary built (or found current), and where.
int build_summary_command(const std::string& report_path, const std::string& trace_path) {
  if (report_path.empty() && trace_path.empty()) throw UsageError("--build-summary needs REPORT or --trace EXP");
  std::string why_none;
  const std::string trace = find_trace(report_path, {}, trace_path, why_none);
  if (trace.empty()) throw InputError(why_none);
  TimelineSource source(trace);
  source.set_summary_mode(SummaryMode::kAlways);
  const bool built = source.summary() != nullptr;
  const nlohmann::json status = source.summary_status();
  if (status.contains("note")) std::printf("note: %s\n", status["note"].get<std::string>().c_str());
  if (!built) throw InputError("the timeline summary could not be built");
  const std::string how = status["built"].get<bool>()
                              ? "built in " + std::to_string(status["build_seconds"].get<double>()) + " s"
                              : "already current";
  std::printf("%s: %.1f MiB, %s\n", status["path"].get<std::string>().c_str(),
              static_cast<double>(status["bytes"].get<std::size_t>()) / (1U << 20U), how.c_str());
  return kExitOk;
}

int serve(std::string report_path, std::string other_path, const GroupOptions& groups,
          ServerOptions options, bool no_browser, std::size_t cache_mib, const std::string& trace_path,
          bool no_trace, std::size_t trace_cache_mib, std::size_t memory_limit, SummaryMode summary_mode) {
  report::tools::install_crash_guard("orrery view");
  std::shared_ptr<ReportData> report;
  std::shared_ptr<ReportData> other;
  std::shared_ptr<GroupStatistics> statistics;
  if (groups.given()) {
    // The trees show each group's mean; run records and traces are each group's first run's.
    auto opened = open_groups(groups.baseline, groups.candidate, groups.test, groups.allow_different_programs);
    report = std::move(opened.baseline_mean);
    other = std::move(opened.candidate_mean);
    statistics = std::move(opened.statistics);
    report_path = groups.baseline.front();
    other_path = groups.candidate.front();
  } else {
    report = open_report(report_path);
    other = other_path.empty() ? nullptr : open_report(other_path);
  }
  // The budget is shared: each report gets its part (by size of its metrics).
  const std::size_t budget = cache_mib << 20U;
  report->set_cache_budget(other ? budget / 2 : budget);
  if (other) other->set_cache_budget(budget / 2);
  auto api = std::make_shared<ViewerApi>(report, other);
  api->add_findings_source(std::make_unique<RootCauseFindings>(report_path));
  api->set_groups(statistics);
  // The runs' records (command line, measurement statistics) for the findings page.
  for (const auto& [index, path, data] : {std::tuple{0, report_path, report}, std::tuple{1, other_path, other}}) {
    if (!data) continue;
    std::string why_none;
    auto record = read_run_record(path, data->header().attributes.experiment, why_none);
    api->set_run_record(static_cast<std::size_t>(index), record ? *record : nlohmann::json(nullptr), why_none);
    // Efficiencies and function groups are one run's; a group's mean report has none.
    if (!groups.given()) api->set_analyses(static_cast<std::size_t>(index), read_run_analyses(path, data->location_count()));
  }
  // Each run's trace (comparing, the other run's too: the page switches between them);
  // --trace names the first run's. Groups: each group's first run's trace.
  const std::size_t runs = other ? 2 : 1;
  for (std::size_t run = 0; run < runs; ++run) {
    // The measurement's records (the process topology) are beside the report, else in its experiment.
    const std::string own = std::filesystem::absolute(run == 0 ? report_path : other_path).parent_path().string();
    const std::string recorded = groups.given() ? std::string() : (run == 0 ? report : other)->header().attributes.experiment;
    api->set_experiment(run, std::filesystem::exists(own + "/topology") || recorded.empty() ? own : recorded);
    if (no_trace) {
      api->set_timeline(nullptr, "This view was started with --no-trace.", run);
      continue;
    }
    std::string why_none;
    // A group's mean report carries the union's attributes, not the run's experiment.
    const std::string experiment =
        groups.given() ? std::string() : (run == 0 ? report : other)->header().attributes.experiment;
    const std::string trace = find_trace(run == 0 ? report_path : other_path, experiment,
                                         run == 0 ? trace_path : std::string(), why_none);
    if (trace.empty()) {
      api->set_timeline(nullptr, why_none, run);
    } else {
      auto source = std::make_shared<TimelineSource>(trace, (trace_cache_mib << 20U) / runs);
      source->set_summary_mode(summary_mode);
      api->set_timeline(std::move(source), {}, run);
    }
  }
  options.token = random_token();
  ViewerServer server(api, embedded_assets(), options);
  server.bind();
  const StopOnSignal stop_on_signal(server);
  // Warm the per-metric caches while the user opens the page; a failure here
  // shows up again, readably, in the request that needs the metric.
  std::atomic<bool> stopping{false};
  std::thread preload([&api, &stopping] {
    try {
      api->preload(stopping);
    } catch (const std::exception&) {
    }
  });
  std::printf("orrery view: serving %s%s%s\n  %s\n(press Ctrl-C to stop)\n",
              report->label().c_str(), other ? " compared with " : "",
              other ? other->label().c_str() : "", server.url().c_str());
  std::fflush(stdout);
  if (!no_browser) open_browser(server.url());
  // After the browser is spawned: a child inherits the cap, and a browser
  // reserves far more address space than it uses.
  server.start_workers();
  limit_process_memory(memory_limit);
  server.run();
  stopping = true;
  preload.join();
  std::printf("orrery view: stopped\n");
  return kExitOk;
}

}  // namespace

int view_command(int argc, char** argv) {
  CLI::App app{"Browse a report (and compare it with another) in the web browser.\n"
               "Serves on 127.0.0.1 and prints an address with a random token;\n"
               "only that address opens the page.",
               "orrery view"};
  std::string report_path;
  std::string other_path;
  ServerOptions options;
  bool no_browser = false;
  app.add_option("REPORT", report_path, "the report to browse (report.h5)");
  app.add_option("OTHER", other_path,
                 "a second report to compare with (difference, percent of the other run)");
  app.add_option("--port,-p", options.port, "port to listen on (0: any free port)")
      ->capture_default_str()
      ->check(CLI::Range(0, 65535));
  app.add_option("--host", options.host,
                 "address to listen on; anything but loopback exposes the report to the network")
      ->capture_default_str();
  app.add_flag("--no-browser", no_browser, "only print the address, do not open a browser");
  std::size_t cache_mib = 2048;
  app.add_option("--cache-mib", cache_mib,
                 "memory for cached metric values (least recently used metrics are dropped and "
                 "read again when needed; one metric is always kept)")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 30U));
  std::string trace_path;
  bool no_trace = false;
  app.add_option("--trace", trace_path,
                 "the experiment (directory with traces.otf2) whose trace the timeline shows; "
                 "default: the report's own directory, else its recorded experiment");
  app.add_flag("--no-trace", no_trace, "show no timeline, even if the trace is there");
  std::size_t trace_cache_mib = 1024;
  app.add_option("--trace-cache-mib", trace_cache_mib,
                 "memory for ranks of the trace read for the timeline (least recently used "
                 "ranks are dropped and read again when needed)")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 30U));
  std::string summary_mode_text = "auto";
  app.add_option("--timeline-summary", summary_mode_text,
                 "draw the timeline from the trace's multi-resolution summary (built beside the trace "
                 "on first use): auto (when the event files exceed 64 MiB), always, never")
      ->capture_default_str()
      ->check(CLI::IsMember({"auto", "always", "never"}));
  bool build_summary_only = false;
  app.add_flag("--build-summary", build_summary_only,
               "build (or check) the timeline summary of the trace (--trace, else REPORT's), print "
               "where it is, its size and build time, and exit");
  std::string memory_limit_text;
  app.add_option("--memory-limit", memory_limit_text,
                 "most memory the viewer may map beyond what it holds at start (e.g. 4G); a "
                 "request that needs more is answered 503 and the viewer keeps serving "
                 "(default: ORRERY_MEMORY_LIMIT, else half the machine's memory)");
  GroupOptions groups;
  app.add_option("--baseline", groups.baseline,
                 "groups of repeated runs: the reports before the change (2 or more); the view "
                 "shows each group's means, confidence intervals and significance")
      ->expected(1, 1 << 20);
  app.add_option("--candidate", groups.candidate, "the reports after the change (2 or more)")
      ->expected(1, 1 << 20);
  app.add_option("--alpha", groups.test.alpha,
                 "groups: significance level; the intervals are (1 - alpha) confidence intervals")
      ->capture_default_str()
      ->check(CLI::Range(1e-12, 0.5));
  report::tools::add_percent_option(app, "--min-change", groups.test.min_change,
                                    "groups: smallest relative change called significant (default 2%)");
  app.add_flag("--allow-different-programs", groups.allow_different_programs,
               "groups: accept runs whose run.json name different programs");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int status = app.exit(e);
    return status == 0 ? kExitOk : kExitBadUsage;
  }
  try {
    if (no_trace && !trace_path.empty()) throw UsageError("--trace and --no-trace exclude each other");
    std::size_t memory_limit = physical_memory_bytes() / 2;
    if (const auto from_environment = memory_limit_from_environment()) {
      memory_limit = *from_environment;
    }
    if (!memory_limit_text.empty()) {
      const auto parsed = parse_byte_size(memory_limit_text);
      if (!parsed) throw UsageError("--memory-limit '" + memory_limit_text + "' is not a size (e.g. 4G, 512M)");
      memory_limit = *parsed;
    }
    const SummaryMode summary_mode = summary_mode_text == "always"  ? SummaryMode::kAlways
                                     : summary_mode_text == "never" ? SummaryMode::kNever
                                                                    : SummaryMode::kAuto;
    if (build_summary_only) return build_summary_command(report_path, trace_path);
    if (groups.given()) {
      if (!report_path.empty()) {
        throw UsageError("give either REPORT [OTHER] or --baseline … --candidate …, not both");
      }
      if (groups.baseline.empty() || groups.candidate.empty()) {
        throw UsageError("groups need both --baseline and --candidate (orrery compare --baseline alone "
                         "reports the noise of one group)");
      }
    } else if (report_path.empty()) {
      throw UsageError("REPORT is required (or --baseline … --candidate …)");
    }
    return serve(report_path, other_path, groups, options, no_browser, cache_mib, trace_path, no_trace,
                 trace_cache_mib, memory_limit, summary_mode);
  } catch (const Error& e) {
    std::fprintf(stderr, "orrery view: %s\n", e.what());
    return e.exit_status();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "orrery view: %s\n", e.what());
    return kExitBadInput;
  }
}

}  // namespace orrery::viewer

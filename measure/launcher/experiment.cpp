// run.json is the user's record of what was run and how it ended. Keys are
// only ever added (docs/design.md: extend by adding, never rename).

#include "experiment.h"
#include "orrery/run_json.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <optional>

#include "orrery/bounded_read.h"
#include "orrery/error.h"

namespace orrery::measure {
namespace {

namespace fs = std::filesystem;
namespace field = run_json::key;  // run.json's keys
using Clock = std::chrono::system_clock;

std::string iso8601(Clock::time_point when) {
  const std::time_t seconds = Clock::to_time_t(when);
  const auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(when.time_since_epoch()).count() % 1000;
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[96];
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                static_cast<int>(millis));
  return text;
}

double epoch_seconds(Clock::time_point when) {
  return std::chrono::duration<double>(when.time_since_epoch()).count();
}

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "unknown";
  return name;
}

std::string joined(const std::vector<std::string>& words) {
  std::string line;
  for (const auto& word : words) {
    if (!line.empty()) line += ' ';
    line += word;
  }
  return line;
}

/// A JSON file the library wrote, or nullopt if absent or unreadable (a
/// half-written file from a killed run is recorded as an error string).
std::optional<nlohmann::json> read_json(const fs::path& path, nlohmann::json& record) {
  if (!fs::exists(path)) return std::nullopt;
  const auto text = read_bounded_text(path);
  if (!text) {
    record["warnings"].push_back(path.filename().string() + " is unreadable or larger than " +
                                 std::to_string(kMaxMetadataFileBytes >> 20) + " MiB");
    return std::nullopt;
  }
  try {
    return nlohmann::json::parse(*text);
  } catch (const nlohmann::json::exception& e) {
    record["warnings"].push_back(path.filename().string() + " is not valid JSON: " + e.what());
    return std::nullopt;
  }
}

}  // namespace

std::string create_experiment_dir(const std::string& path) {
  const fs::path absolute = fs::absolute(path).lexically_normal();
  std::error_code error;
  if (fs::exists(absolute, error)) {
    throw InputError("experiment directory '" + path +
                     "' already exists; remove it or choose another with -o");
  }
  const fs::path parent = absolute.parent_path();
  if (!parent.empty() && !fs::exists(parent, error)) fs::create_directories(parent, error);
  if (error || mkdir(absolute.c_str(), 0777) != 0) {
    throw InputError("cannot create experiment directory '" + path + "': " +
                     (error ? error.message() : std::string(std::strerror(errno))));
  }
  if (access(absolute.c_str(), W_OK | X_OK) != 0) {
    throw InputError("experiment directory '" + path + "' is not writable");
  }
  std::string text = absolute.string();
  if (text.size() > 1 && text.back() == '/') text.pop_back();
  return text;
}

nlohmann::json initial_run_record(const RunOptions& options, const std::vector<std::string>& executed,
                                  const std::string& experiment_dir) {
  const auto now = Clock::now();
  nlohmann::json settings = {{field::kMode, options.mode},
                             {"trace_queries", options.trace_queries},
                             {"verbose", options.verbose}};
  settings["buffer_size"] = options.buffer_size.empty() ? nullptr : nlohmann::json(options.buffer_size);
  if (auto bytes = parse_byte_size(options.buffer_size)) settings["buffer_bytes"] = *bytes;
  settings["filter"] = options.filter_file.empty() ? nullptr : nlohmann::json(options.filter_file);
  settings["sampling_interval_ms"] =
      options.sampling_interval_ms.empty() ? nullptr : nlohmann::json(std::stoll(options.sampling_interval_ms));
  nlohmann::json params = nlohmann::json::object();
  for (const auto& [key, value] : options.params) params[key] = value;
  nlohmann::json environment = nlohmann::json::object();
  for (const auto& name : options.recorded_variables) {
    const char* value = std::getenv(name.c_str());
    environment[name] = value == nullptr ? nlohmann::json(nullptr) : nlohmann::json(value);
  }
  return {
      {field::kFormat, "orrery-run"},
      {"format_version", 1},
      {"creator", std::string("orrery run ") + ORRERY_LAUNCHER_VERSION},
      {"experiment", experiment_dir},
      {field::kCommand, options.launch},
      {field::kCommandLine, joined(options.launch)},
      {"executed", executed},
      {"working_directory", fs::current_path().string()},
      {"launcher_host", host_name()},
      {field::kSettings, settings},
      {field::kParams, params},
      {field::kEnvironment, environment},
      {field::kStart, iso8601(now)},
      {"start_epoch_s", epoch_seconds(now)},
      {field::kComplete, false},
  };
}

std::string signal_name(int signal_number) {
  const char* abbreviation = sigabbrev_np(signal_number);
  return abbreviation != nullptr ? std::string("SIG") + abbreviation
                                 : "signal " + std::to_string(signal_number);
}

namespace {

/// Ranks of an incomplete run without a rank-local record: they were killed
/// by a signal the library cannot catch. mpirun exits with 128 + the signal
/// of a rank that died of one (Open MPI, MPICH's hydra).
void find_lost_ranks(const nlohmann::json& incomplete, const ChildExit& child, RunOutcome& outcome) {
  if (incomplete.empty() || !incomplete[0].is_object()) return;
  const auto ranks = incomplete[0].value(field::kRanks, 0);
  std::vector<bool> present(static_cast<std::size_t>(std::max(ranks, 0)), false);
  for (const auto& rank_record : incomplete) {
    const int rank = rank_record.is_object() ? rank_record.value("rank", -1) : -1;
    if (rank >= 0 && rank < ranks) present[static_cast<std::size_t>(rank)] = true;
  }
  for (std::size_t r = 0; r < present.size(); ++r) {
    if (!present[r]) outcome.ranks_without_trace.push_back(static_cast<int>(r));
  }
  if (!outcome.ranks_without_trace.empty() && child.signal == 0 && child.exit_status > 128 &&
      child.exit_status < 128 + 65) {
    outcome.rank_signal = child.exit_status - 128;
  }
}

}  // namespace

/// Ranks whose trace or spill files could not be written (a full disk, a
/// quota): by the library's own account in measurement.json.
int count_write_errors(const std::optional<nlohmann::json>& measurement) {
  if (!measurement || !measurement->is_object()) return 0;
  const auto statistics = measurement->value(field::kStatistics, nlohmann::json::object());
  const auto ranks = statistics.is_object() ? statistics.value(field::kPerRank, nlohmann::json::array())
                                            : nlohmann::json::array();
  int failed = 0;
  for (const auto& rank : ranks) {
    if (!rank.is_object()) continue;
    const auto anomalies = rank.value("anomalies", nlohmann::json::object());
    const bool spill_failed = anomalies.is_object() && anomalies.value("spill_write_errors", 0) > 0;
    // (trace_written alone says nothing: a profile writes no trace.)
    if (rank.value("otf2_errors", 0) > 0 || rank.value("lost_events", 0) > 0 || spill_failed) {
      ++failed;
    }
  }
  return failed;
}

RunOutcome complete_run_record(nlohmann::json& record, const std::string& experiment_dir,
                               const ChildExit& child) {
  const auto now = Clock::now();
  const fs::path dir(experiment_dir);
  RunOutcome outcome;
  record["end"] = iso8601(now);
  record["end_epoch_s"] = epoch_seconds(now);
  record[field::kDurationS] = epoch_seconds(now) - record.value("start_epoch_s", epoch_seconds(now));
  record[field::kExitStatus] = child.exit_status;
  record["signal"] = child.signal == 0 ? nlohmann::json(nullptr) : nlohmann::json(child.signal);
  if (!child.error.empty()) record["launch_error"] = child.error;
  if (child.interrupted_by != 0) record["interrupted_by_signal"] = child.interrupted_by;

  auto measurement = read_json(dir / "measurement.json", record);
  auto aborted = read_json(dir / "aborted.json", record);
  outcome.measured = measurement.has_value();
  outcome.aborted = aborted.has_value();
  outcome.traced = fs::exists(dir / "traces.otf2");
  outcome.write_errors = count_write_errors(measurement);
  outcome.complete = outcome.measured && child.exit_status == 0 && outcome.write_errors == 0;

  // Ranks that ended without MPI_Finalize leave EXP/incomplete/rank-<r>.json
  // next to a rank-local trace; listed in rank order.
  std::vector<fs::path> incomplete_files;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(dir / "incomplete", error)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with("rank-") && name.ends_with(".json")) incomplete_files.push_back(entry.path());
  }
  std::sort(incomplete_files.begin(), incomplete_files.end(), [](const fs::path& a, const fs::path& b) {
    return a.filename().string().size() != b.filename().string().size()
               ? a.filename().string().size() < b.filename().string().size()
               : a.filename() < b.filename();
  });
  nlohmann::json incomplete = nlohmann::json::array();
  for (const auto& file : incomplete_files) {
    if (auto rank_record = read_json(file, record)) incomplete.push_back(*rank_record);
  }
  outcome.incomplete_ranks = static_cast<int>(incomplete.size());
  if (!incomplete.empty() && incomplete[0].is_object()) {
    outcome.incomplete_reason = incomplete[0].value(field::kReason, std::string("unknown"));
  }
  record[field::kIncomplete] = incomplete.empty() ? nlohmann::json(nullptr) : incomplete;
  find_lost_ranks(incomplete, child, outcome);
  if (!outcome.ranks_without_trace.empty()) {
    record["ranks_without_trace"] = outcome.ranks_without_trace;
    record["rank_signal"] = outcome.rank_signal == 0 ? nlohmann::json(nullptr)
                                                     : nlohmann::json(outcome.rank_signal);
    record[field::kRankSignalName] =
        outcome.rank_signal == 0 ? nlohmann::json(nullptr) : nlohmann::json(signal_name(outcome.rank_signal));
  }

  record[field::kMeasurement] = measurement ? *measurement : nlohmann::json(nullptr);
  record[field::kAborted] = aborted ? *aborted : nlohmann::json(nullptr);
  if (measurement) {
    if (measurement->contains(field::kRanks)) record[field::kRanks] = (*measurement)[field::kRanks];
    // The clock, its per-node conversion and the offsets (node_clock.h).
    if (measurement->contains(field::kClock)) record[field::kClock] = (*measurement)[field::kClock];
    if (measurement->contains(field::kHosts) && (*measurement)[field::kHosts].is_array()) {
      // measurement.json lists the host of each rank; run.json lists each host once.
      nlohmann::json hosts = nlohmann::json::array();
      for (const auto& host : (*measurement)[field::kHosts]) {
        if (std::find(hosts.begin(), hosts.end(), host) == hosts.end()) hosts.push_back(host);
      }
      record[field::kHosts] = hosts;
    }
  }
  if (!record.contains(field::kHosts)) record[field::kHosts] = nlohmann::json::array({record["launcher_host"]});
  record["trace"] = outcome.traced;
  record[field::kComplete] = outcome.complete;
  return outcome;
}

void write_run_record(const std::string& experiment_dir, const nlohmann::json& record) {
  const fs::path target = fs::path(experiment_dir) / "run.json";
  const fs::path temporary = fs::path(experiment_dir) / ".run.json.tmp";
  bool written = false;
  {
    std::ofstream out(temporary);
    out << record.dump(2) << '\n';
    out.flush();
    written = static_cast<bool>(out);
  }
  std::error_code error;
  if (written) fs::rename(temporary, target, error);
  if (!written || error) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    throw InputError("cannot write '" + target.string() + "': " +
                     (error ? error.message() : std::string("is the disk full?")));
  }
}

}  // namespace orrery::measure

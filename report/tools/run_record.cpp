#include "run_record.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "orrery/error.h"
#include "orrery/launch_command.h"
#include "orrery/bounded_read.h"

namespace orrery::report::tools {
namespace {

namespace fs = std::filesystem;

/// The experiment directory an experiment path names (EXP, EXP/run.json, EXP/traces.otf2).
fs::path experiment_dir(const fs::path& path) {
  const std::string name = path.filename().string();
  if (name == "run.json" || name.ends_with(".otf2")) return path.parent_path();
  return path;
}

std::vector<std::string> command_words(const nlohmann::json& value) {
  std::vector<std::string> words;
  if (value.is_string()) {
    std::istringstream in(value.get<std::string>());
    for (std::string word; in >> word;) words.push_back(word);
  } else if (value.is_array()) {
    for (const auto& word : value) {
      if (word.is_string()) words.push_back(word.get<std::string>());
    }
  }
  return words;
}

std::string joined(const std::vector<std::string>& words) {
  std::string line;
  for (const auto& word : words) line += (line.empty() ? "" : " ") + word;
  return line;
}

/// A scalar JSON value as the user wrote it ("4", "true", "x"), for parameters.
std::string scalar_text(const nlohmann::json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

}  // namespace

std::string find_run_json(const std::string& path, const std::string& experiment_attribute) {
  std::error_code error;
  const fs::path given(path);
  if (fs::is_directory(given, error) || given.filename() == "run.json") {
    const fs::path candidate = experiment_dir(given) / "run.json";
    return fs::is_regular_file(candidate, error) ? candidate.string() : "";
  }
  // A report: usually EXP/report.h5, else wherever -o put it; then the
  // experiment it records (as given to orrery-analyze, maybe relative).
  const fs::path own = fs::absolute(given, error).parent_path() / "run.json";
  if (fs::is_regular_file(own, error)) return own.string();
  if (!experiment_attribute.empty()) {
    fs::path recorded = experiment_dir(fs::path(experiment_attribute));
    const fs::path candidate = recorded / "run.json";
    if (fs::is_regular_file(candidate, error)) return candidate.string();
  }
  return "";
}

RunRecord read_run_record(const std::string& source, const std::string& run_json) {
  const auto text = read_bounded_text(run_json);
  if (!text) throw InputError(run_json + ": cannot read (or larger than 64 MiB)");
  const nlohmann::json run = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!run.is_object()) throw InputError(run_json + ": not a run.json (no JSON object)");
  RunRecord record;
  record.source = source;
  record.run_json = run_json;
  const auto words = command_words(run.value("command", nlohmann::json()));
  record.command = joined(words);
  record.program = program_from_command(words);
  if (const auto ranks = run.value("ranks", nlohmann::json()); ranks.is_number_integer()) {
    record.ranks = ranks.get<long long>();
  }
  if (const auto hosts = run.value("hosts", nlohmann::json()); hosts.is_array()) {
    for (const auto& host : hosts) {
      if (host.is_string()) record.hosts.push_back(host.get<std::string>());
    }
  }
  // The launcher writes start/duration_s; a run without it (library only) start_time.
  for (const char* key : {"start", "start_time"}) {
    if (const auto start = run.value(key, nlohmann::json()); start.is_string()) {
      record.start = start.get<std::string>();
      break;
    }
  }
  if (const auto duration = run.value("duration_s", nlohmann::json()); duration.is_number()) {
    record.duration_s = duration.get<double>();
  }
  if (const auto complete = run.value("complete", nlohmann::json()); complete.is_boolean()) {
    record.complete = complete.get<bool>();
  }
  if (const auto params = run.value("params", nlohmann::json()); params.is_object()) {
    for (const auto& [key, value] : params.items()) record.params[key] = scalar_text(value);
  }
  if (const auto environment = run.value("environment", nlohmann::json()); environment.is_object()) {
    for (const auto& [name, value] : environment.items()) {
      record.environment[name] =
          value.is_null() ? std::nullopt : std::optional<std::string>(scalar_text(value));
    }
  }
  return record;
}

}  // namespace orrery::report::tools

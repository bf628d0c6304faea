#include "run_record.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "orrery/error.h"
#include "orrery/launch_command.h"
#include "orrery/run_json.h"

namespace orrery::report::tools {
namespace {

namespace fs = std::filesystem;

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
  if (fs::is_directory(given, error) || given.filename() == run_json::kFileName) {
    const fs::path candidate = run_json::file_of(given);
    return fs::is_regular_file(candidate, error) ? candidate.string() : "";
  }
  // A report: usually EXP/report.h5, else wherever -o put it; then the
  // experiment it records (as given to orrery-analyze, maybe relative).
  const fs::path own = fs::absolute(given, error).parent_path() / run_json::kFileName;
  if (fs::is_regular_file(own, error)) return own.string();
  if (!experiment_attribute.empty()) {
    const fs::path candidate = run_json::file_of(experiment_attribute);
    if (fs::is_regular_file(candidate, error)) return candidate.string();
  }
  return "";
}

RunRecord read_run_record(const std::string& source, const std::string& run_json) {
  std::string why;
  const auto parsed = run_json::read(run_json, &why);
  if (!parsed) throw InputError(why);
  const nlohmann::json& run = *parsed;
  using namespace run_json::key;
  RunRecord record;
  record.source = source;
  record.run_json = run_json;
  const auto words = run_json::command_words(run.value(kCommand, nlohmann::json()));
  record.command = joined(words);
  record.program = program_from_command(words);
  if (const auto ranks = run.value(kRanks, nlohmann::json()); ranks.is_number_integer()) {
    record.ranks = ranks.get<long long>();
  }
  if (const auto hosts = run.value(kHosts, nlohmann::json()); hosts.is_array()) {
    for (const auto& host : hosts) {
      if (host.is_string()) record.hosts.push_back(host.get<std::string>());
    }
  }
  // The launcher writes start/duration_s; a run without it (library only) start_time.
  for (const char* key : {kStart, kStartTime}) {
    if (const auto start = run.value(key, nlohmann::json()); start.is_string()) {
      record.start = start.get<std::string>();
      break;
    }
  }
  if (const auto duration = run.value(kDurationS, nlohmann::json()); duration.is_number()) {
    record.duration_s = duration.get<double>();
  }
  if (const auto complete = run.value(kComplete, nlohmann::json()); complete.is_boolean()) {
    record.complete = complete.get<bool>();
  }
  if (const auto params = run.value(kParams, nlohmann::json()); params.is_object()) {
    for (const auto& [key, value] : params.items()) record.params[key] = scalar_text(value);
  }
  if (const auto environment = run.value(kEnvironment, nlohmann::json()); environment.is_object()) {
    for (const auto& [name, value] : environment.items()) {
      record.environment[name] =
          value.is_null() ? std::nullopt : std::optional<std::string>(scalar_text(value));
    }
  }
  return record;
}

}  // namespace orrery::report::tools

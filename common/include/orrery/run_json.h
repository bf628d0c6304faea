#pragma once
// EXP/run.json, the record of one measured run (docs/design.md §3, written by
// `orrery run` and by the measurement library at MPI_Finalize): the one
// definition of its file name, of the keys that more than one part writes or
// reads, and of reading it. Writers (measure/launcher/experiment.cpp,
// measure/lib/src/{experiment,measurement}.cpp) and readers (the analyzer's
// program root, clock report and incomplete-run check, `orrery runs` /
// `compare`, the viewer's run facts) use these names, so a key cannot be
// spelled two ways.

#include <filesystem>
#include <initializer_list>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "orrery/bounded_read.h"

namespace orrery::run_json {

inline constexpr const char* kFileName = "run.json";

/// Keys of run.json. Top level (the launcher's), then the library's record
/// under `measurement` (also its own run.json when run without the launcher).
namespace key {
inline constexpr const char* kFormat = "format";              ///< "orrery-run"
inline constexpr const char* kCommand = "command";            ///< launch line as words
inline constexpr const char* kCommandLine = "command_line";   ///< the same, one string
inline constexpr const char* kSettings = "settings";          ///< orrery run's options
inline constexpr const char* kMode = "mode";                  ///< settings.mode: trace/profile
inline constexpr const char* kParams = "params";              ///< --param KEY=VALUE
inline constexpr const char* kEnvironment = "environment";    ///< --env NAME (null: unset)
inline constexpr const char* kStart = "start";                ///< ISO 8601 (launcher)
inline constexpr const char* kStartTime = "start_time";       ///< ISO 8601 (library only)
inline constexpr const char* kEndTime = "end_time";           ///< ISO 8601 (library only)
inline constexpr const char* kDurationS = "duration_s";
inline constexpr const char* kExitStatus = "exit_status";
inline constexpr const char* kComplete = "complete";          ///< reached MPI_Finalize
inline constexpr const char* kRanks = "ranks";
inline constexpr const char* kHosts = "hosts";
inline constexpr const char* kClock = "clock";                ///< clock description
inline constexpr const char* kIncomplete = "incomplete";      ///< per-rank markers or null
inline constexpr const char* kAborted = "aborted";            ///< MPI_Abort's marker or null
inline constexpr const char* kReason = "reason";              ///< why a rank ended early
inline constexpr const char* kRankSignalName = "rank_signal_name";
inline constexpr const char* kMeasurement = "measurement";    ///< the library's record
inline constexpr const char* kProgram = "program";            ///< measurement.program
inline constexpr const char* kStatistics = "statistics";      ///< measurement.statistics
inline constexpr const char* kTotal = "total";                ///< statistics.total
inline constexpr const char* kPerRank = "per_rank";           ///< statistics.per_rank
inline constexpr const char* kAnalysis = "analysis";          ///< written by analyzers
}  // namespace key

/// The run.json of an experiment given as its directory, its anchor
/// (EXP/traces.otf2) or its run.json.
inline std::filesystem::path file_of(const std::filesystem::path& experiment) {
  const std::string name = experiment.filename().string();
  if (name == kFileName) return experiment;
  if (name.ends_with(".otf2")) {
    return (experiment.has_parent_path() ? experiment.parent_path() : std::filesystem::path("."))
           / kFileName;
  }
  return experiment / kFileName;
}

/// The parsed run.json at `file`; nullopt (and `why`, if given) when it is
/// missing, unreadable, larger than the bounded read allows or not a JSON
/// object. Never throws.
inline std::optional<nlohmann::json> read(const std::filesystem::path& file,
                                          std::string* why = nullptr) {
  const auto text = read_bounded_text(file);
  if (!text) {
    if (why) *why = file.string() + ": cannot read (or larger than 64 MiB)";
    return std::nullopt;
  }
  nlohmann::json record = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!record.is_object()) {
    if (why) *why = file.string() + " is not valid JSON (no JSON object)";
    return std::nullopt;
  }
  return record;
}

/// record[a][b]... if every step exists, else null.
inline nlohmann::json at(const nlohmann::json& record, std::initializer_list<const char*> keys) {
  const nlohmann::json* node = &record;
  for (const char* name : keys) {
    if (!node->is_object() || !node->contains(name)) return nullptr;
    node = &(*node)[name];
  }
  return *node;
}

/// The launch line's words from `command` (an array) or `command_line` (one
/// string, split at white space); non-strings are skipped.
inline std::vector<std::string> command_words(const nlohmann::json& value) {
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

}  // namespace orrery::run_json

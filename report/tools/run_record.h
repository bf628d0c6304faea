#pragma once
// A run's metadata as `orrery run` recorded it in EXP/run.json, found from an
// experiment directory or from a report (its own directory, else the
// directory its `experiment` root attribute names).

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace orrery::report::tools {

/// What `orrery runs` shows of one run and `orrery compare` checks.
struct RunRecord {
  std::string source;    ///< the argument the user gave (experiment or report)
  std::string run_json;  ///< path of the run.json read
  std::string program;   ///< executable's base name from the command line; "" if unknown
  std::string command;   ///< the launch line as one string
  std::optional<long long> ranks;
  std::vector<std::string> hosts;
  std::string start;                      ///< ISO 8601 as recorded; "" if absent
  std::optional<double> duration_s;
  std::optional<bool> complete;
  std::map<std::string, std::string> params;       ///< orrery run --param KEY=VALUE
  std::map<std::string, std::optional<std::string>> environment;  ///< --env NAME (nullopt: unset)
};

/// The run.json belonging to `path` (an experiment directory, its run.json,
/// or a report), or "" if there is none. `experiment_attribute` is the
/// report's `experiment` root attribute when `path` is a report.
[[nodiscard]] std::string find_run_json(const std::string& path,
                                        const std::string& experiment_attribute);

/// Reads a run.json; throws InputError if it is unreadable or not a JSON object.
[[nodiscard]] RunRecord read_run_record(const std::string& source, const std::string& run_json);

}  // namespace orrery::report::tools

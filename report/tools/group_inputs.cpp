#include "group_inputs.h"

#include <cmath>
#include <filesystem>
#include <optional>

#include "orrery/error.h"
#include "run_record.h"
#include "tool_support.h"

namespace orrery::report::tools {
namespace {

/// "2%", "2" (both percent) or "0.5%" as a fraction; a CLI11 check and parser in one.
std::optional<double> parse_percent(std::string text) {
  if (!text.empty() && text.back() == '%') text.pop_back();
  if (text.empty()) return std::nullopt;
  try {
    std::size_t used = 0;
    const double value = std::stod(text, &used);
    if (used != text.size() || !std::isfinite(value) || value < 0) return std::nullopt;
    return value / 100.0;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

// Each run once: the same run twice would fake a small spread.
std::vector<std::unique_ptr<CubeReader>> open_group(const std::vector<std::string>& paths,
                                                    std::vector<std::string>& seen) {
  std::vector<std::unique_ptr<CubeReader>> readers;
  for (const auto& path : paths) {
    std::error_code error;
    for (const auto& other : seen) {
      if (path == other || std::filesystem::equivalent(path, other, error)) {
        throw UsageError(path + " is given twice; each run counts once");
      }
    }
    seen.push_back(path);
    readers.push_back(std::make_unique<CubeReader>(open_report(path)));
  }
  return readers;
}

std::vector<GroupRun> group_runs(const std::vector<std::string>& paths,
                                 const std::vector<std::unique_ptr<CubeReader>>& readers) {
  std::vector<GroupRun> runs;
  for (std::size_t i = 0; i < paths.size(); ++i) runs.push_back({paths[i], readers[i].get()});
  return runs;
}

// Runs without a run.json (e.g. computed reports) are not checked.
void check_same_program(const std::vector<GroupRun>& runs) {
  std::string first_program;
  std::string first_path;
  for (const GroupRun& run : runs) {
    const std::string run_json = find_run_json(run.path, run.reader->header().attributes.experiment);
    if (run_json.empty()) continue;  // no record (e.g. a computed report): nothing to check
    const std::string program = read_run_record(run.path, run_json).program;
    if (program.empty()) continue;
    if (first_program.empty()) {
      first_program = program;
      first_path = run.path;
    } else if (program != first_program) {
      throw InputError("the runs are of different programs (" + first_path + " ran " +
                       first_program + ", " + run.path + " ran " + program +
                       "); give --allow-different-programs to compare them anyway");
    }
  }
}

void add_percent_option(CLI::App& app, const std::string& name, double& target,
                        const std::string& help) {
  app.add_option_function<std::string>(
         name, [&target](const std::string& text) { target = *parse_percent(text); }, help)
      ->check(CLI::Validator(
          [](const std::string& text) {
            return parse_percent(text) ? std::string()
                                       : "'" + text + "' is not a percentage (e.g. 2% or 0.5)";
          },
          "P%"));
}

}  // namespace orrery::report::tools

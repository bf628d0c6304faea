// `orrery runs EXP_OR_REPORT...`: the runs' metadata side by side, so that
// groups of runs for `orrery compare --baseline ... --candidate ...` can be
// chosen by what differed (parameters given with `orrery run --param`).

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>

#include "format.h"
#include "orrery/error.h"
#include "run_record.h"
#include "orrery/report/tools/commands.h"
#include "tool_support.h"

namespace orrery::report::tools {
namespace {

struct RunsOptions {
  std::vector<std::string> paths;
  OutputFormat format = OutputFormat::kTable;
};

RunRecord load_record(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code error;
  if (!fs::exists(path, error)) throw InputError(path + ": no such file or directory");
  std::string experiment;
  if (!fs::is_directory(path, error) && fs::path(path).filename() != "run.json") {
    experiment = open_report(path).header().attributes.experiment;
  }
  const std::string run_json = find_run_json(path, experiment);
  if (run_json.empty() && fs::is_directory(path, error)) {
    throw InputError(path + ": no run.json there (not an experiment measured with orrery run)");
  }
  if (run_json.empty()) {
    throw InputError(path + ": no run.json beside the report" +
                     (experiment.empty() ? std::string() : " nor in its experiment " + experiment));
  }
  return read_run_record(path, run_json);
}

std::string hosts_text(const std::vector<std::string>& hosts) {
  std::string text;
  for (std::size_t i = 0; i < hosts.size() && i < 3; ++i) text += (i ? "," : "") + hosts[i];
  if (hosts.size() > 3) text += ",... (" + std::to_string(hosts.size()) + ")";
  return text.empty() ? "-" : text;
}

std::string duration_text(const std::optional<double>& seconds) {
  if (!seconds) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%.2f s", *seconds);
  return text;
}

/// "2026-11-24T16:01:02.123Z" shown as "2026-11-24 16:01:02".
std::string start_text(std::string start) {
  if (start.empty()) return "-";
  if (start.size() >= 19 && start[10] == 'T') {
    start[10] = ' ';
    start.resize(19);
  }
  return start;
}

void print_runs(const RunsOptions& options, const std::vector<RunRecord>& records) {
  std::set<std::string> param_keys;
  std::set<std::string> variables;
  for (const auto& record : records) {
    for (const auto& [key, value] : record.params) param_keys.insert(key);
    for (const auto& [name, value] : record.environment) variables.insert(name);
  }
  if (options.format == OutputFormat::kJson) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& record : records) {
      nlohmann::json environment = nlohmann::json::object();
      for (const auto& [name, value] : record.environment) {
        environment[name] = value ? nlohmann::json(*value) : nlohmann::json(nullptr);
      }
      out.push_back({{"run", record.source},
                     {"run_json", record.run_json},
                     {"program", record.program},
                     {"command", record.command},
                     {"ranks", record.ranks ? nlohmann::json(*record.ranks) : nlohmann::json(nullptr)},
                     {"hosts", record.hosts},
                     {"start", record.start},
                     {"duration_s", record.duration_s ? nlohmann::json(*record.duration_s)
                                                      : nlohmann::json(nullptr)},
                     {"complete", record.complete ? nlohmann::json(*record.complete)
                                                  : nlohmann::json(nullptr)},
                     {"params", record.params},
                     {"environment", environment}});
    }
    std::cout << out.dump(2) << "\n";
    return;
  }
  std::vector<std::string> titles = {"run", "program", "ranks", "hosts", "start", "duration"};
  for (const auto& key : param_keys) titles.push_back(key);
  for (const auto& name : variables) titles.push_back("$" + name);
  titles.emplace_back("command");
  std::vector<std::vector<std::string>> rows;
  for (const auto& record : records) {
    std::vector<std::string> row = {record.source,
                                    record.program.empty() ? "-" : record.program,
                                    record.ranks ? std::to_string(*record.ranks) : "-",
                                    hosts_text(record.hosts),
                                    start_text(record.start),
                                    duration_text(record.duration_s)};
    for (const auto& key : param_keys) {
      const auto found = record.params.find(key);
      row.push_back(found == record.params.end() ? "-" : found->second);
    }
    for (const auto& name : variables) {
      const auto found = record.environment.find(name);
      row.push_back(found == record.environment.end() || !found->second ? "-" : *found->second);
    }
    row.push_back(record.command);
    rows.push_back(std::move(row));
  }
  if (options.format == OutputFormat::kCsv) {
    std::cout << csv_line(titles);
    for (const auto& row : rows) std::cout << csv_line(row);
    return;
  }
  std::vector<TextTable::ColumnSpec> columns;
  for (const auto& title : titles) {
    const bool right = title == "ranks" || title == "duration";
    columns.push_back({title, right ? TextTable::Align::kRight : TextTable::Align::kLeft});
  }
  TextTable table(columns);
  for (auto& row : rows) table.add_row(std::move(row));
  std::cout << table.render();
}

}  // namespace

int runs_command(int argc, char** argv) {
  CLI::App app{"The metadata of runs side by side: program, ranks, hosts, start, duration, the "
               "parameters given with 'orrery run --param KEY=VALUE', the environment variables "
               "recorded with 'orrery run --env NAME', and the command. Reads each run's "
               "run.json (for a report: beside it, else in its recorded experiment).",
               "orrery runs"};
  RunsOptions options;
  app.add_option("runs", options.paths, "experiment directories or reports")->required();
  add_format_option(app, options.format);
  return run_tool(app, argc, argv, [&] {
    std::vector<RunRecord> records;
    for (const auto& path : options.paths) records.push_back(load_record(path));
    print_runs(options, records);
  });
}

}  // namespace orrery::report::tools

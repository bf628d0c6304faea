#include "tool_support.h"

#include <cstdio>
#include <filesystem>
#include <iostream>

#include "crash_guard.h"
#include "orrery/error.h"
#include "orrery/report/atomic_file.h"
#include "orrery/report/trees.h"

namespace orrery::report::tools {

int run_tool(CLI::App& app, int argc, char** argv, const std::function<void()>& body) {
  const std::string name = app.get_name();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    if (error.get_exit_code() == 0) {
      return app.exit(error);  // --help
    }
    std::cerr << name << ": " << error.what() << " (see '" << name << " --help')\n";
    return kExitBadUsage;
  }
  install_crash_guard(name);
  try {
    body();
    std::cout.flush();
    return kExitOk;
  } catch (const Error& error) {
    std::cout.flush();
    std::cerr << name << ": " << error.what() << "\n";
    return error.exit_status();
  } catch (const std::bad_alloc&) {
    const std::string reports = noted_reports();
    std::cerr << name << ": " << (reports.empty() ? "" : reports + ": ")
              << "out of memory (is a size in the report corrupt?)\n";
    return kExitBadInput;
  } catch (const std::exception& error) {
    std::cerr << name << ": " << error.what() << "\n";
    return kExitBadInput;
  }
}

CubeReader open_report(const std::string& path) {
  note_report(path);
  return CubeReader(path);
}

void add_format_option(CLI::App& app, OutputFormat& format,
                       const std::vector<std::string>& choices) {
  const std::map<std::string, OutputFormat> all = {
      {"table", OutputFormat::kTable}, {"csv", OutputFormat::kCsv}, {"json", OutputFormat::kJson}};
  format = all.at(choices.front());
  std::string listed;
  for (const auto& choice : choices) {
    listed += (listed.empty() ? "" : "|") + choice;
  }
  app.add_option_function<std::string>(
         "--format", [&format, all](const std::string& value) { format = all.at(value); },
         "output format: " + listed + " (default " + choices.front() + ")")
      ->check(CLI::IsMember(choices));
}

void add_metric_options(CLI::App& app, MetricOptions& options) {
  app.add_option("-m,--metric", options.metric, "metric name (see 'orrery info')")
      ->capture_default_str();
  app.add_flag("--exclusive-metric", options.exclusive_metric,
               "only the metric itself, without its sub-metrics");
}

MetricValues load_metric(const CubeReader& reader, std::size_t metric_row, bool exclusive_metric) {
  MetricValues sum = reader.read_metric(metric_row);
  if (exclusive_metric) {
    return sum;
  }
  const auto rows = metric_subtree(reader.header(), metric_row);
  for (std::size_t i = 1; i < rows.size(); ++i) {
    reader.add_metric(rows[i], sum);
  }
  return sum;
}

std::vector<std::string> loaded_metric_names(const CubeHeader& header, std::size_t metric_row,
                                             bool exclusive_metric) {
  std::vector<std::string> names;
  for (const std::size_t row : metric_subtree(header, metric_row)) {
    names.push_back(header.metrics[row].name);
    if (exclusive_metric) {
      break;
    }
  }
  return names;
}

void write_report_atomically(const std::string& path, const std::vector<std::string>& inputs,
                             const std::function<void(const std::string&)>& write) {
  namespace fs = std::filesystem;
  std::error_code error;
  for (const auto& input : inputs) {
    if (fs::equivalent(path, input, error)) {
      throw UsageError("the output " + path + " is also an input");
    }
  }
  if (fs::is_directory(path, error)) {
    throw InputError(path + ": is a directory");
  }
  AtomicFile output(path);
  try {
    write(output.temporary());
  } catch (const fs::filesystem_error& failure) {
    output.fail(path + ": cannot write: " + failure.code().message());
  } catch (const InputError& failure) {
    output.fail(failure.what());
  }
  output.commit();
}

}  // namespace orrery::report::tools

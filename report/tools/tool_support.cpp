#include "tool_support.h"

#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "crash_guard.h"
#include "orrery/allocation_limit.h"
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
    if (const auto limit = memory_limit_from_environment()) {
      limit_process_memory(*limit);
    }
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
              << "out of memory ("
              << (std::getenv("ORRERY_MEMORY_LIMIT") != nullptr
                      ? "ORRERY_MEMORY_LIMIT=" + std::string(std::getenv("ORRERY_MEMORY_LIMIT")) +
                            " is too small for it, or a size in the report is corrupt)\n"
                      : "is a size in the report corrupt?)\n");
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

MetricValues load_metric(const CubeReader& reader, std::size_t metric_row, bool exclusive_metric,
                         std::vector<double>* own_totals) {
  const auto total_of = [](const MetricValues& values) {
    double total = 0;
    for (const double value : values) {
      if (!std::isnan(value)) {
        total += value;
      }
    }
    return total;
  };
  MetricValues sum = reader.read_metric(metric_row);
  double so_far = own_totals != nullptr ? total_of(sum) : 0.0;
  if (own_totals != nullptr) {
    own_totals->assign(1, so_far);
  }
  if (exclusive_metric) {
    return sum;
  }
  const auto rows = metric_subtree(reader.header(), metric_row);
  for (std::size_t i = 1; i < rows.size(); ++i) {
    reader.add_metric(rows[i], sum);
    if (own_totals != nullptr) {
      const double now = total_of(sum);
      own_totals->push_back(now - so_far);
      so_far = now;
    }
  }
  return sum;
}

std::vector<SubmetricTotal> submetric_totals(const CubeHeader& header, std::size_t metric_row,
                                             const std::vector<double>& own_totals) {
  const auto rows = metric_subtree(header, metric_row);
  std::vector<SubmetricTotal> subs;
  std::vector<double> inclusive(rows.size(), 0.0);
  for (std::size_t i = 0; i < rows.size() && i < own_totals.size(); ++i) {
    // Add this metric's own total to it and to every ancestor within the subtree.
    for (std::size_t j = i + 1; j-- > 0;) {
      bool ancestor = j == i;
      for (int32_t p = header.metrics[rows[i]].parent; !ancestor && p >= 0;
           p = header.metrics[static_cast<std::size_t>(p)].parent) {
        ancestor = static_cast<std::size_t>(p) == rows[j];
      }
      if (ancestor) {
        inclusive[j] += own_totals[i];
      }
    }
  }
  // Only the sub-metrics that were loaded (none with --exclusive-metric).
  for (std::size_t i = 1; i < rows.size() && i < own_totals.size(); ++i) {
    int depth = 0;
    for (int32_t p = header.metrics[rows[i]].parent; p >= 0 && static_cast<std::size_t>(p) != metric_row;
         p = header.metrics[static_cast<std::size_t>(p)].parent) {
      ++depth;
    }
    subs.push_back({rows[i], depth + 1, inclusive[i]});
  }
  return subs;
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

#pragma once
// What every cube tool shares: running a CLI11 app with Orrery's exit codes
// and one-line messages, the --format option, and loading a metric's values
// the way the tools present them.

// GCC 12 reports a false -Wnull-dereference inside CLI11's string splitting
// (inlined into whichever file uses CLI11); the diagnostic is switched off for
// the tool sources, which include CLI11 only through this header.
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

#include "orrery/report/cube.h"
#include "orrery/report/hdf5_io.h"

namespace orrery::report::tools {

/// What --format asked for.
enum class OutputFormat { kTable, kCsv, kJson };

/// Opens a report for reading (see crash_guard.h for why the name is noted first).
CubeReader open_report(const std::string& path);

/// Parses argv into `app` and runs `body`: 0 on success, 2 on bad usage, 1 on bad input;
/// every failure is one line "orrery <cmd>: ..." on stderr.
int run_tool(CLI::App& app, int argc, char** argv, const std::function<void()>& body);

/// Adds --format with the given choices (a subset of table, csv, json).
void add_format_option(CLI::App& app, OutputFormat& format,
                       const std::vector<std::string>& choices = {"table", "csv", "json"});

/// The --metric and --exclusive-metric options shared by stat and tree.
struct MetricOptions {
  std::string metric = "time";
  bool exclusive_metric = false;  ///< only the metric itself, not its sub-metrics
};
/// Adds --metric and --exclusive-metric to `app`.
void add_metric_options(CLI::App& app, MetricOptions& options);

/// A metric's values as the tools show them: the metric plus, unless
/// `exclusive_metric`, all its sub-metrics (values are exclusive along the
/// metric tree, so the sum is what the user means by "time"). Read one metric at a time.
/// With `own_totals`, also the sum of each loaded metric's own values, in
/// the order of loaded_metric_names.
MetricValues load_metric(const CubeReader& reader, std::size_t metric_row, bool exclusive_metric,
                         std::vector<double>* own_totals = nullptr);

/// One sub-metric of a loaded metric with its total including its own
/// sub-metrics (the "of which" lines of stat and the analyzer's summary).
struct SubmetricTotal {
  std::size_t row = 0;
  int depth = 1;  ///< 1 for a child of the loaded metric, 2 for a grandchild, ...
  double total = 0;
};
/// The sub-metrics of `metric_row` in pre-order, from load_metric's own totals.
std::vector<SubmetricTotal> submetric_totals(const CubeHeader& header, std::size_t metric_row,
                                             const std::vector<double>& own_totals);

/// Names of the metrics load_metric adds up.
std::vector<std::string> loaded_metric_names(const CubeHeader& header, std::size_t metric_row,
                                             bool exclusive_metric);

/// Writes a report to `path` atomically (a temporary file renamed into place);
/// refuses to overwrite one of `inputs`.
void write_report_atomically(const std::string& path, const std::vector<std::string>& inputs,
                             const std::function<void(const std::string& temporary)>& write);

}  // namespace orrery::report::tools

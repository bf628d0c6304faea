// `orrery compare A B [C ...]`: per metric and call path, the values of each
// run and their change against the first run. Call paths are matched by
// region-name path, so runs with other process counts or binaries compare.

#include <algorithm>
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>

#include "format.h"
#include "group_compare_command.h"
#include "orrery/error.h"
#include "orrery/report/algebra.h"
#include "orrery/report/run_totals.h"
#include "orrery/report/trees.h"
#include "orrery/report/tools/commands.h"
#include "tool_support.h"

namespace orrery::report::tools {
namespace {

struct CompareOptions {
  std::vector<std::string> reports;
  std::vector<std::string> metrics;
  bool exclusive_metric = false;
  bool inclusive = false;
  bool per_process = false;
  std::size_t top = 10;
  OutputFormat format = OutputFormat::kTable;
};

struct MetricComparison {
  std::size_t metric = 0;
  std::vector<std::vector<double>> values;  ///< [run][callpath]
  std::vector<double> totals;               ///< [run]
  std::vector<std::size_t> rows;            ///< call paths listed, biggest change first
};

double change_of(const MetricComparison& comparison, std::size_t run, std::size_t row) {
  return comparison.values[run][row] - comparison.values[0][row];
}

/// "+12.5%", "new" when the first run had nothing, "-" without change.
std::string relative_text(double before, double after) {
  if (after == before) {
    return "-";
  }
  if (before == 0.0) {
    return "new";
  }
  char text[32];
  std::snprintf(text, sizeof text, "%+.1f%%", 100.0 * (after - before) / std::fabs(before));
  return text;
}

nlohmann::json relative_json(double before, double after) {
  if (before == 0.0) {
    return nullptr;
  }
  return (after - before) / std::fabs(before);
}

MetricComparison compare_metric(const CubeUnion& united, const RunTotals& totals, std::size_t m,
                                const CompareOptions& options) {
  const CubeHeader& header = united.header;
  MetricComparison comparison;
  comparison.metric = m;
  for (std::size_t run = 0; run < totals.size(); ++run) {
    std::vector<double> values =
        metric_values(united, totals[run], m, {options.exclusive_metric, false});
    double total = 0;
    for (const double value : values) {
      total += value;
    }
    if (options.inclusive) {
      values = metric_values(united, totals[run], m, {options.exclusive_metric, true});
    }
    comparison.values.push_back(std::move(values));
    comparison.totals.push_back(total);
  }
  auto biggest_change = [&](std::size_t row) {
    double biggest = 0;
    for (std::size_t run = 1; run < totals.size(); ++run) {
      biggest = std::max(biggest, std::fabs(change_of(comparison, run, row)));
    }
    return biggest;
  };
  for (std::size_t row = 0; row < header.callpaths.size(); ++row) {
    if (biggest_change(row) > 0) {
      comparison.rows.push_back(row);
    }
  }
  std::stable_sort(comparison.rows.begin(), comparison.rows.end(),
                   [&](std::size_t a, std::size_t b) { return biggest_change(a) > biggest_change(b); });
  if (options.top > 0 && comparison.rows.size() > options.top) {
    comparison.rows.resize(options.top);
  }
  return comparison;
}

std::string run_label(std::size_t run) {
  return run < 26 ? std::string(1, static_cast<char>('A' + run)) : "R" + std::to_string(run + 1);
}

void print_table(const CompareOptions& options, const std::vector<CubeReader>& readers,
                 const CubeUnion& united, const std::vector<MetricComparison>& comparisons,
                 std::size_t unchanged) {
  for (std::size_t run = 0; run < readers.size(); ++run) {
    std::cout << run_label(run) << " = " << options.reports[run] << " ("
              << readers[run].header().locations.size() << " locations)\n";
  }
  std::cout << "Values are " << (options.inclusive ? "inclusive" : "exclusive")
            << " call-path totals" << (options.per_process ? " per location" : "")
            << "; changes are against A.\n";
  const auto labels = callpath_labels(united.header);
  for (const MetricComparison& comparison : comparisons) {
    const Metric& metric = united.header.metrics[comparison.metric];
    std::cout << "\n" << metric.name << " (" << metric.display_name << "):";
    for (std::size_t run = 0; run < comparison.totals.size(); ++run) {
      std::cout << (run == 0 ? " " : " -> ") << run_label(run) << " "
                << format_value(comparison.totals[run], metric.unit);
      if (run > 0) {
        std::cout << " (" << relative_text(comparison.totals[0], comparison.totals[run]) << ")";
      }
    }
    std::cout << "\n";
    std::vector<TextTable::ColumnSpec> columns = {{"A"}};
    for (std::size_t run = 1; run < comparison.totals.size(); ++run) {
      columns.push_back({run_label(run)});
      columns.push_back({run_label(run) + "-A"});
      columns.push_back({"change"});
    }
    columns.push_back({"call path", TextTable::Align::kLeft});
    TextTable table(columns);
    for (const std::size_t row : comparison.rows) {
      std::vector<std::string> cells = {format_value(comparison.values[0][row], metric.unit)};
      for (std::size_t run = 1; run < comparison.totals.size(); ++run) {
        cells.push_back(format_value(comparison.values[run][row], metric.unit));
        cells.push_back(format_value(change_of(comparison, run, row), metric.unit));
        cells.push_back(relative_text(comparison.values[0][row], comparison.values[run][row]));
      }
      cells.push_back(labels[row]);
      table.add_row(std::move(cells));
    }
    std::cout << table.render();
  }
  if (unchanged > 0) {
    std::cout << "\n" << unchanged << " metrics unchanged across the runs\n";
  }
}

void print_json(const CompareOptions& options, const std::vector<CubeReader>& readers,
                const CubeUnion& united, const std::vector<MetricComparison>& comparisons) {
  nlohmann::json out;
  out["inclusive"] = options.inclusive;
  out["per_process"] = options.per_process;
  out["runs"] = nlohmann::json::array();
  for (std::size_t run = 0; run < readers.size(); ++run) {
    out["runs"].push_back({{"label", run_label(run)},
                           {"report", options.reports[run]},
                           {"locations", readers[run].header().locations.size()}});
  }
  const auto labels = callpath_labels(united.header);
  out["metrics"] = nlohmann::json::array();
  for (const MetricComparison& comparison : comparisons) {
    const Metric& metric = united.header.metrics[comparison.metric];
    nlohmann::json entry = {{"metric", metric.name}, {"unit", metric.unit},
                            {"totals", comparison.totals}};
    entry["callpaths"] = nlohmann::json::array();
    for (const std::size_t row : comparison.rows) {
      nlohmann::json values = nlohmann::json::array();
      nlohmann::json changes = nlohmann::json::array();
      nlohmann::json relative = nlohmann::json::array();
      for (std::size_t run = 0; run < comparison.totals.size(); ++run) {
        values.push_back(comparison.values[run][row]);
        changes.push_back(change_of(comparison, run, row));
        relative.push_back(relative_json(comparison.values[0][row], comparison.values[run][row]));
      }
      entry["callpaths"].push_back({{"callpath", labels[row]},
                                    {"values", values},
                                    {"change", changes},
                                    {"relative", relative}});
    }
    out["metrics"].push_back(entry);
  }
  std::cout << out.dump(2) << "\n";
}

void print_csv(const CubeUnion& united, const std::vector<MetricComparison>& comparisons,
               std::size_t runs) {
  std::vector<std::string> titles = {"metric", "callpath", "A"};
  for (std::size_t run = 1; run < runs; ++run) {
    titles.push_back(run_label(run));
    titles.push_back(run_label(run) + "-A");
  }
  std::cout << csv_line(titles);
  const auto labels = callpath_labels(united.header);
  for (const MetricComparison& comparison : comparisons) {
    for (const std::size_t row : comparison.rows) {
      std::vector<std::string> fields = {united.header.metrics[comparison.metric].name,
                                         labels[row], exact_number(comparison.values[0][row])};
      for (std::size_t run = 1; run < runs; ++run) {
        fields.push_back(exact_number(comparison.values[run][row]));
        fields.push_back(exact_number(change_of(comparison, run, row)));
      }
      std::cout << csv_line(fields);
    }
  }
}

void run_compare(const CompareOptions& options) {
  std::vector<CubeReader> readers;
  readers.reserve(options.reports.size());
  for (const auto& report : options.reports) {
    readers.push_back(open_report(report));
  }
  std::vector<const CubeHeader*> headers;
  for (const auto& reader : readers) {
    headers.push_back(&reader.header());
  }
  const CubeUnion united = unite(headers);
  std::vector<std::size_t> metric_rows;
  if (options.metrics.empty()) {
    for (std::size_t m = 0; m < united.header.metrics.size(); ++m) {
      metric_rows.push_back(m);
    }
  } else {
    for (const auto& name : options.metrics) {
      const auto& metrics = united.header.metrics;
      const auto found = std::find_if(metrics.begin(), metrics.end(),
                                      [&](const Metric& metric) { return metric.name == name; });
      if (found == metrics.end()) {
        throw InputError("no metric '" + name + "' in any of the reports");
      }
      metric_rows.push_back(static_cast<std::size_t>(found - metrics.begin()));
    }
  }
  std::vector<const CubeReader*> reader_pointers;
  for (const auto& reader : readers) {
    reader_pointers.push_back(&reader);
  }
  const RunTotals totals = run_totals(reader_pointers, united, options.per_process);
  std::vector<MetricComparison> comparisons;
  std::size_t unchanged = 0;
  for (const std::size_t m : metric_rows) {
    MetricComparison comparison = compare_metric(united, totals, m, options);
    if (comparison.rows.empty() && options.metrics.empty()) {
      ++unchanged;  // listing every metric: skip those that did not change at all
      continue;
    }
    comparisons.push_back(std::move(comparison));
  }
  switch (options.format) {
    case OutputFormat::kJson:
      print_json(options, readers, united, comparisons);
      break;
    case OutputFormat::kCsv:
      print_csv(united, comparisons, readers.size());
      break;
    case OutputFormat::kTable:
      print_table(options, readers, united, comparisons, unchanged);
      break;
  }
}

}  // namespace

int compare_command(int argc, char** argv) {
  if (wants_group_compare(argc, argv)) {
    return group_compare_command(argc, argv);
  }
  CLI::App app{"Per metric and call path, the values of several runs and their change against "
               "the first. Call paths are matched by region-name path, processes need not "
               "match. A metric includes its sub-metrics unless --exclusive-metric is given.",
               "orrery compare"};
  CompareOptions options;
  app.add_option("reports", options.reports, "two or more reports; the first is the baseline")
      ->required()
      ->expected(2, 1 << 20);
  app.add_option("-m,--metric", options.metrics,
                 "metric(s) to compare (repeatable; default: every metric that changed)");
  app.add_flag("--exclusive-metric", options.exclusive_metric,
               "only the metric itself, without its sub-metrics");
  app.add_flag("-i,--inclusive", options.inclusive, "compare inclusive call-path values");
  app.add_flag("--per-process", options.per_process,
               "divide each run's values by its number of locations (for different run sizes)");
  app.add_option("-k,--top", options.top, "call paths per metric, biggest change first (0 = all)")
      ->capture_default_str();
  add_format_option(app, options.format);
  app.footer("Groups of repeated runs, with confidence intervals and a significance test:\n"
             "  orrery compare --baseline A1.h5 A2.h5 ... [--candidate B1.h5 B2.h5 ...]\n"
             "(see 'orrery compare --baseline --help').");
  return run_tool(app, argc, argv, [&] { run_compare(options); });
}

}  // namespace orrery::report::tools

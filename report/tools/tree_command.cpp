// `orrery tree REPORT`: the call tree with values and percentages.

#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>

#include "format.h"
#include "orrery/error.h"
#include "orrery/report/trees.h"
#include "orrery/report/tools/commands.h"
#include "summary.h"
#include "tool_support.h"

namespace orrery::report::tools {
namespace {

struct TreeOptions {
  std::string report;
  MetricOptions metric;
  bool inclusive = false;
  double threshold = 0.0;  ///< percent of the total
  OutputFormat format = OutputFormat::kTable;
};

/// Rows shown: those whose inclusive share reaches the threshold, and whose parent is shown.
/// Inclusive |value| bounds the subtree's, so hiding a node hides nothing bigger below it.
std::vector<bool> shown_rows(const CubeHeader& header, const MetricSummary& summary,
                             double threshold) {
  std::vector<bool> shown(header.callpaths.size(), false);
  const double limit = std::fabs(summary.total) * threshold / 100.0;
  for (std::size_t row = 0; row < shown.size(); ++row) {
    const int32_t parent = header.callpaths[row].parent;
    const bool parent_shown = parent < 0 || shown[static_cast<std::size_t>(parent)];
    shown[row] = parent_shown && std::fabs(summary.callpaths[row].inclusive) >= limit;
  }
  return shown;
}

void run_tree(const TreeOptions& options) {
  const CubeReader reader = open_report(options.report);
  const CubeHeader& header = reader.header();
  const std::size_t metric_row = reader.metric_row(options.metric.metric);
  const Metric& metric = header.metrics[metric_row];
  MetricSummary summary;
  {
    MetricValues values = load_metric(reader, metric_row, options.metric.exclusive_metric);
    summary = summarize(header, values, options.inclusive);
  }
  const auto shown = shown_rows(header, summary, options.threshold);
  const auto depths = callpath_depths(header);
  const auto labels = callpath_labels(header);
  auto value_of = [&](std::size_t row) {
    return options.inclusive ? summary.callpaths[row].inclusive : summary.callpaths[row].exclusive;
  };

  if (options.format == OutputFormat::kJson) {
    nlohmann::json out;
    out["report"] = options.report;
    out["metric"] = metric.name;
    out["unit"] = metric.unit;
    out["metrics_summed"] = loaded_metric_names(header, metric_row, options.metric.exclusive_metric);
    out["inclusive"] = options.inclusive;
    out["threshold"] = options.threshold;
    out["total"] = summary.total;
    out["nodes"] = nlohmann::json::array();
    for (std::size_t row = 0; row < shown.size(); ++row) {
      if (!shown[row]) {
        continue;
      }
      const double percent = summary.total != 0 ? 100.0 * value_of(row) / summary.total : 0.0;
      out["nodes"].push_back(
          {{"row", row},
           {"parent", header.callpaths[row].parent},
           {"depth", depths[row]},
           {"name", header.regions[static_cast<std::size_t>(header.callpaths[row].region)].name},
           {"callpath", labels[row]},
           {"exclusive", summary.callpaths[row].exclusive},
           {"inclusive", summary.callpaths[row].inclusive},
           {"percent", percent}});
    }
    std::cout << out.dump(2) << "\n";
    return;
  }
  if (options.format == OutputFormat::kCsv) {
    std::cout << csv_line({"row", "parent", "depth", "callpath", "exclusive", "inclusive",
                           "percent"});
    for (std::size_t row = 0; row < shown.size(); ++row) {
      if (shown[row]) {
        const double percent = summary.total != 0 ? 100.0 * value_of(row) / summary.total : 0.0;
        std::cout << csv_line({std::to_string(row), std::to_string(header.callpaths[row].parent),
                               std::to_string(depths[row]), labels[row],
                               exact_number(summary.callpaths[row].exclusive),
                               exact_number(summary.callpaths[row].inclusive),
                               exact_number(percent)});
      }
    }
    return;
  }
  std::cout << metric.name << " (" << metric.display_name << "), "
            << (options.inclusive ? "inclusive" : "exclusive") << " values; 100% = "
            << format_value(summary.total, metric.unit);
  if (options.threshold > 0) {
    std::cout << "; hiding call paths under " << format_number(options.threshold) << "%";
  }
  std::cout << "\n\n";
  TextTable table({{"value"}, {"%"}, {"call tree", TextTable::Align::kLeft}});
  std::size_t hidden = 0;
  for (std::size_t row = 0; row < shown.size(); ++row) {
    if (!shown[row]) {
      ++hidden;
      continue;
    }
    const auto& region = header.regions[static_cast<std::size_t>(header.callpaths[row].region)];
    table.add_row({format_value(value_of(row), metric.unit),
                   format_percent(value_of(row), summary.total),
                   std::string(2 * static_cast<std::size_t>(depths[row]), ' ') + region.name});
  }
  std::cout << table.render();
  if (hidden > 0) {
    std::cout << "(" << hidden << " call paths below the threshold not shown)\n";
  }
}

}  // namespace

int tree_command(int argc, char** argv) {
  CLI::App app{"The call tree with a metric's values and percentages of its total.\n"
               "A metric includes its sub-metrics unless --exclusive-metric is given.",
               "orrery tree"};
  TreeOptions options;
  app.add_option("report", options.report, "report file (report.h5)")->required();
  add_metric_options(app, options.metric);
  app.add_flag("-i,--inclusive", options.inclusive,
               "show inclusive values (a call path with everything it calls)");
  app.add_option("-t,--threshold", options.threshold,
                 "hide call paths whose inclusive share is below this percentage")
      ->check(CLI::Range(0.0, 100.0))
      ->capture_default_str();
  add_format_option(app, options.format);
  return run_tool(app, argc, argv, [&] { run_tree(options); });
}

}  // namespace orrery::report::tools

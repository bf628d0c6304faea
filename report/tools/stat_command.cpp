// `orrery stat REPORT`: the hottest call paths for a metric, inclusive and
// exclusive, with per-process min/mean/max and coefficient of variation, and
// the processes carrying most of the metric.

#include <algorithm>
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>
#include <numeric>

#include "format.h"
#include "orrery/error.h"
#include "orrery/report/algebra.h"
#include "orrery/report/trees.h"
#include "orrery/report/tools/commands.h"
#include "summary.h"
#include "tool_support.h"

namespace orrery::report::tools {
namespace {

struct StatOptions {
  std::string report;
  MetricOptions metric;
  std::size_t top = 10;
  std::string callpath;
  bool inclusive = false;
  OutputFormat format = OutputFormat::kTable;
};

/// Row indices sorted by decreasing |key|, limited to `top` (0 = all), ties by row.
std::vector<std::size_t> hottest(const std::vector<double>& keys, const std::vector<bool>& chosen,
                                 std::size_t top) {
  std::vector<std::size_t> rows;
  for (std::size_t row = 0; row < keys.size(); ++row) {
    if (chosen[row]) {
      rows.push_back(row);
    }
  }
  std::stable_sort(rows.begin(), rows.end(), [&](std::size_t a, std::size_t b) {
    return std::fabs(keys[a]) > std::fabs(keys[b]);
  });
  if (top > 0 && rows.size() > top) {
    rows.resize(top);
  }
  return rows;
}

struct StatResult {
  const CubeHeader* header = nullptr;
  const Metric* metric = nullptr;
  std::vector<std::string> metric_names;
  std::vector<SubmetricTotal> submetrics;  ///< the sub-metrics summed in, with their totals
  MetricSummary summary;
  std::vector<std::string> labels;
  std::vector<std::size_t> callpath_rows;  ///< hottest first
  std::vector<std::size_t> location_rows;  ///< hottest first
};

void print_json(const StatOptions& options, const StatResult& result) {
  nlohmann::json out;
  out["report"] = options.report;
  out["metric"] = result.metric->name;
  out["unit"] = result.metric->unit;
  out["metrics_summed"] = result.metric_names;
  out["sorted_by"] = options.inclusive ? "inclusive" : "exclusive";
  out["spread_of"] = options.inclusive ? "inclusive" : "exclusive";
  out["total"] = result.summary.total;
  out["submetrics"] = nlohmann::json::array();
  for (const SubmetricTotal& sub : result.submetrics) {
    const Metric& metric = result.header->metrics[sub.row];
    out["submetrics"].push_back(
        {{"metric", metric.name},
         {"parent", result.header->metrics[static_cast<std::size_t>(metric.parent)].name},
         {"total", sub.total}});
  }
  out["n_locations"] = result.header->locations.size();
  out["callpaths"] = nlohmann::json::array();
  for (const std::size_t row : result.callpath_rows) {
    const CallpathSummary& c = result.summary.callpaths[row];
    out["callpaths"].push_back({{"row", row},
                                {"callpath", result.labels[row]},
                                {"exclusive", c.exclusive},
                                {"inclusive", c.inclusive},
                                {"min", c.spread.min},
                                {"mean", c.spread.mean},
                                {"max", c.spread.max},
                                {"cv", c.spread.cv}});
  }
  out["processes"] = nlohmann::json::array();
  for (const std::size_t l : result.location_rows) {
    const Location& location = result.header->locations[l];
    out["processes"].push_back({{"rank", location.rank},
                                {"thread", location.thread},
                                {"node", location.node},
                                {"value", result.summary.per_location[l]}});
  }
  std::cout << out.dump(2) << "\n";
}

void print_csv(const StatResult& result) {
  std::cout << csv_line({"row", "callpath", "exclusive", "inclusive", "min", "mean", "max", "cv"});
  for (const std::size_t row : result.callpath_rows) {
    const CallpathSummary& c = result.summary.callpaths[row];
    std::cout << csv_line({std::to_string(row), result.labels[row], exact_number(c.exclusive),
                           exact_number(c.inclusive), exact_number(c.spread.min),
                           exact_number(c.spread.mean), exact_number(c.spread.max),
                           exact_number(c.spread.cv)});
  }
}

void print_table(const StatOptions& options, const StatResult& result) {
  const std::string& unit = result.metric->unit;
  const double total = result.summary.total;
  std::cout << "Metric " << result.metric->name << " (" << result.metric->display_name << ")";
  if (result.metric_names.size() > 1) {
    const std::size_t subs = result.metric_names.size() - 1;
    std::cout << " with " << subs << (subs == 1 ? " sub-metric" : " sub-metrics");
  }
  std::cout << ": total " << format_value(total, unit) << " over "
            << result.header->locations.size() << " locations\n";
  // The parts the total includes, nested (each includes its own sub-metrics).
  for (const SubmetricTotal& sub : result.submetrics) {
    if (sub.total == 0.0) {
      continue;  // nothing of it in this report
    }
    const Metric& metric = result.header->metrics[sub.row];
    std::cout << std::string(2 * static_cast<std::size_t>(sub.depth), ' ') << "of which "
              << metric.name << " (" << metric.display_name << "): "
              << format_value(sub.total, metric.unit) << "\n";
  }
  const char* basis = options.inclusive ? "inclusive" : "exclusive";
  std::cout << "Hottest call paths by " << basis << " value; min/mean/max/CV of the " << basis
            << " value across locations\n\n";
  using Align = TextTable::Align;
  TextTable table({{"#"}, {"exclusive"}, {"excl%"}, {"inclusive"}, {"incl%"}, {"min"}, {"mean"},
                   {"max"}, {"CV"}, {"call path", Align::kLeft}});
  std::size_t rank = 0;
  for (const std::size_t row : result.callpath_rows) {
    const CallpathSummary& c = result.summary.callpaths[row];
    table.add_row({std::to_string(++rank), format_value(c.exclusive, unit),
                   format_percent(c.exclusive, total), format_value(c.inclusive, unit),
                   format_percent(c.inclusive, total), format_value(c.spread.min, unit),
                   format_value(c.spread.mean, unit), format_value(c.spread.max, unit),
                   format_fixed(c.spread.cv, 3), result.labels[row]});
  }
  std::cout << table.render() << "\nProcesses with the most " << result.metric->name
            << (options.callpath.empty() ? "" : " in these call paths") << "\n\n";
  TextTable processes({{"rank"}, {"thread"}, {"node", Align::kLeft}, {"value"}, {"share"}});
  for (const std::size_t l : result.location_rows) {
    const Location& location = result.header->locations[l];
    processes.add_row({std::to_string(location.rank), std::to_string(location.thread),
                       location.node, format_value(result.summary.per_location[l], unit),
                       format_percent(result.summary.per_location[l], total)});
  }
  std::cout << processes.render();
}

void run_stat(const StatOptions& options) {
  const CubeReader reader = open_report(options.report);
  const CubeHeader& header = reader.header();
  const std::size_t metric_row = reader.metric_row(options.metric.metric);
  StatResult result;
  result.header = &header;
  result.metric = &header.metrics[metric_row];
  result.metric_names =
      loaded_metric_names(header, metric_row, options.metric.exclusive_metric);
  std::vector<bool> chosen(header.callpaths.size(), true);
  if (!options.callpath.empty()) {
    chosen = CallpathMatcher(options.callpath).matches(header);
    if (std::find(chosen.begin(), chosen.end(), true) == chosen.end()) {
      throw InputError(options.report + ": no call path matches '" + options.callpath + "'");
    }
  }
  {
    std::vector<double> own_totals;
    MetricValues values =
        load_metric(reader, metric_row, options.metric.exclusive_metric, &own_totals);
    result.submetrics = submetric_totals(header, metric_row, own_totals);
    result.summary = summarize(header, values, options.inclusive, &chosen);
  }  // the values are freed before printing
  result.labels = callpath_labels(header);
  std::vector<double> keys;
  for (const CallpathSummary& c : result.summary.callpaths) {
    keys.push_back(options.inclusive ? c.inclusive : c.exclusive);
  }
  result.callpath_rows = hottest(keys, chosen, options.top);
  result.location_rows = hottest(result.summary.per_location,
                                 std::vector<bool>(header.locations.size(), true), options.top);
  switch (options.format) {
    case OutputFormat::kJson:
      print_json(options, result);
      break;
    case OutputFormat::kCsv:
      print_csv(result);
      break;
    case OutputFormat::kTable:
      print_table(options, result);
      break;
  }
}

}  // namespace

int stat_command(int argc, char** argv) {
  CLI::App app{
      "The hottest call paths for a metric, exclusive and inclusive, with per-process "
      "min/mean/max and coefficient of variation; then the processes with the most of it.\n"
      "A metric includes its sub-metrics unless --exclusive-metric is given.",
      "orrery stat"};
  StatOptions options;
  app.add_option("report", options.report, "report file (report.h5)")->required();
  add_metric_options(app, options.metric);
  app.add_option("-k,--top", options.top, "how many call paths and processes to list (0 = all)")
      ->capture_default_str();
  app.add_option("-c,--callpath", options.callpath,
                 "only call paths whose region name or path (main/solve) matches this name or "
                 "regular expression");
  app.add_flag("-i,--inclusive", options.inclusive,
               "rank call paths, and compute the per-process spread, by inclusive value");
  add_format_option(app, options.format);
  return run_tool(app, argc, argv, [&] { run_stat(options); });
}

}  // namespace orrery::report::tools

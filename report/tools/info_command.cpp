// `orrery info REPORT`: what a report holds.

#include <algorithm>
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>

#include "orrery/report/tools/commands.h"
#include "format.h"
#include "orrery/error.h"
#include "orrery/report/clock_record.h"
#include "orrery/report/efficiency.h"
#include "orrery/report/trees.h"
#include "tool_support.h"

namespace orrery::report::tools {
namespace {

struct InfoOptions {
  std::string report;
  OutputFormat format = OutputFormat::kTable;
  bool totals = false;
  std::string metric;  ///< explain this metric instead of listing the report
};

/// What one metric means and what to do about it (the patterns' description and diagnosis).
void explain_metric(const CubeReader& reader, const std::string& name, OutputFormat format) {
  const CubeHeader& header = reader.header();
  const Metric& metric = header.metrics[reader.metric_row(name)];
  const std::string parent =
      metric.parent < 0 ? "" : header.metrics[static_cast<std::size_t>(metric.parent)].name;
  std::vector<std::string> children;
  for (const Metric& other : header.metrics) {
    if (other.parent >= 0 && &header.metrics[static_cast<std::size_t>(other.parent)] == &metric) {
      children.push_back(other.name);
    }
  }
  if (format == OutputFormat::kJson) {
    std::cout << nlohmann::json{{"name", metric.name},
                                {"display_name", metric.display_name},
                                {"unit", metric.unit},
                                {"parent", parent},
                                {"children", children},
                                {"description", metric.description},
                                {"diagnosis", metric.diagnosis}}
                     .dump(2)
              << "\n";
    return;
  }
  std::cout << metric.name << " — " << metric.display_name << " (" << metric.unit << ")\n";
  if (!parent.empty()) {
    std::cout << "part of:     " << parent << "\n";
  }
  if (!children.empty()) {
    std::cout << "consists of:";
    for (const auto& child : children) {
      std::cout << " " << child;
    }
    std::cout << "\n";
  }
  std::cout << "\n" << metric.description << "\n";
  if (!metric.diagnosis.empty()) {
    std::cout << "\nDiagnosis: " << metric.diagnosis << "\n";
  }
}

/// Totals of every metric (exclusive along the metric tree), read one metric at a time.
std::vector<double> metric_totals(const CubeReader& reader) {
  std::vector<double> totals;
  for (std::size_t m = 0; m < reader.header().metrics.size(); ++m) {
    const MetricValues values = reader.read_metric(m);
    double sum = 0;
    for (const double value : values) {
      if (!std::isnan(value)) {  // NaN: a rank without trace
        sum += value;
      }
    }
    totals.push_back(sum);
  }
  return totals;
}

std::vector<int> metric_depths(const CubeHeader& header) {
  std::vector<int> depths;
  for (const Metric& metric : header.metrics) {
    depths.push_back(metric.parent < 0 ? 0 : depths[static_cast<std::size_t>(metric.parent)] + 1);
  }
  return depths;
}

/// A metric's total including its sub-metrics (totals are the metrics' own).
double with_submetrics(const CubeHeader& header, const std::vector<double>& totals,
                       std::size_t row) {
  double sum = 0;
  for (const std::size_t m : metric_subtree(header, row)) {
    sum += totals[m];
  }
  return sum;
}

void print_json(const InfoOptions& options, const CubeHeader& header,
                const std::vector<double>& totals) {
  nlohmann::json out;
  out["file"] = options.report;
  out["format"] = "orrery-cube";
  out["format_version"] = 1;
  out["creator"] = header.attributes.creator;
  out["experiment"] = header.attributes.experiment;
  out["created"] = header.attributes.created;
  if (const auto clock = read_clock_record(options.report)) {
    nlohmann::json ranks = nlohmann::json::array();
    for (const ClockCorrectionRow& row : clock->corrections) {
      ranks.push_back({{"rank", row.rank}, {"violations", row.violations}, {"corrected", row.corrected},
                       {"moved", row.moved}, {"max_shift", row.max_shift}});
    }
    out["clock"] = {{"description", clock->clock}, {"corrections", ranks}};
  }
  if (const auto rows = read_efficiencies(options.report); !rows.empty()) {
    out["efficiency"] = nlohmann::json::object();
    for (const Efficiency& row : rows) out["efficiency"][row.name] = row.value;
  }
  if (const auto prediction = read_prediction(options.report)) {
    out["what_if"] = prediction->what_if;
    out["predicted_runtime"] = prediction->predicted_runtime;
  }
  out["callpaths"] = header.callpaths.size();
  out["regions"] = header.regions.size();
  out["locations"] = nlohmann::json::array();
  for (const Location& location : header.locations) {
    out["locations"].push_back({{"rank", location.rank},
                                {"thread", location.thread},
                                {"node", location.node},
                                {"name", location.name}});
  }
  out["metrics"] = nlohmann::json::array();
  for (std::size_t m = 0; m < header.metrics.size(); ++m) {
    const Metric& metric = header.metrics[m];
    nlohmann::json entry = {{"name", metric.name},
                            {"display_name", metric.display_name},
                            {"parent", metric.parent < 0 ? nlohmann::json(nullptr)
                                                         : nlohmann::json(header.metrics[static_cast<std::size_t>(metric.parent)].name)},
                            {"unit", metric.unit},
                            {"description", metric.description}};
    if (!totals.empty()) {
      entry["total"] = totals[m];
      entry["total_with_submetrics"] = with_submetrics(header, totals, m);
    }
    out["metrics"].push_back(entry);
  }
  std::cout << out.dump(2) << "\n";
}

void print_table(const InfoOptions& options, const CubeHeader& header,
                 const std::vector<double>& totals) {
  const auto depths = callpath_depths(header);
  const int max_depth = depths.empty() ? 0 : *std::max_element(depths.begin(), depths.end()) + 1;
  std::set<int32_t> ranks;
  std::set<std::string> nodes;
  int32_t max_thread = 0;
  for (const Location& location : header.locations) {
    ranks.insert(location.rank);
    nodes.insert(location.node);
    max_thread = std::max(max_thread, location.thread);
  }
  std::cout << "Report      " << options.report << "\n"
            << "Format      orrery-cube 1, created " << header.attributes.created << " by "
            << header.attributes.creator << "\n"
            << "Experiment  " << header.attributes.experiment << "\n"
            << "Call paths  " << header.callpaths.size() << " (depth " << max_depth << "), "
            << header.regions.size() << " regions\n"
            << "Locations   " << header.locations.size() << " (" << ranks.size() << " ranks";
  if (!ranks.empty()) {
    std::cout << " " << *ranks.begin() << "-" << *ranks.rbegin();
  }
  std::cout << ", " << (max_thread == 0 ? "1 thread" : "up to " + std::to_string(max_thread + 1) + " threads")
            << " per rank, " << nodes.size() << (nodes.size() == 1 ? " node)\n" : " nodes)\n")
            << "Metrics     " << header.metrics.size() << "\n";
  if (const auto clock = read_clock_record(options.report)) std::cout << clock_record_text(*clock);
  if (const auto prediction = read_prediction(options.report)) {
    std::cout << "What if     " << prediction->what_if << ": predicted run time "
              << format_fixed(prediction->predicted_runtime, 6) << " s\n";
  }
  if (const auto rows = read_efficiencies(options.report); !rows.empty()) {
    std::cout << "Efficiency  (POP)\n" << efficiency_text(rows);
  }
  std::cout << "\n";
  std::vector<TextTable::ColumnSpec> columns = {{"metric", TextTable::Align::kLeft},
                                                {"display name", TextTable::Align::kLeft},
                                                {"unit", TextTable::Align::kLeft}};
  if (!totals.empty()) {
    // A metric's total includes its sub-metrics, listed under it ("of
    // which"), so the parts add up to it; "own" is the rest.
    columns.push_back({"total", TextTable::Align::kRight});
    columns.push_back({"own", TextTable::Align::kRight});
  }
  TextTable table(columns);
  const auto indents = metric_depths(header);
  for (std::size_t m = 0; m < header.metrics.size(); ++m) {
    const Metric& metric = header.metrics[m];
    std::vector<std::string> row = {std::string(2 * static_cast<std::size_t>(indents[m]), ' ') +
                                        (!totals.empty() && metric.parent >= 0 ? "of which " : "") + metric.name,
                                    metric.display_name, metric.unit};
    if (!totals.empty()) {
      row.push_back(format_value(with_submetrics(header, totals, m), metric.unit));
      row.push_back(format_value(totals[m], metric.unit));
    }
    table.add_row(std::move(row));
  }
  std::cout << table.render();
}

}  // namespace

int info_command(int argc, char** argv) {
  CLI::App app{"What a report holds: attributes, call tree size, locations, the metric tree.",
               "orrery info"};
  InfoOptions options;
  app.add_option("report", options.report, "report file (report.h5)")->required();
  add_format_option(app, options.format, {"table", "json"});
  app.add_flag("--totals", options.totals,
               "also read every metric and print its total (own value, without sub-metrics)");
  app.add_option("-m,--metric", options.metric,
                 "explain one metric: what it measures and what to do about it");
  return run_tool(app, argc, argv, [&] {
    const CubeReader reader = open_report(options.report);
    if (!options.metric.empty()) {
      explain_metric(reader, options.metric, options.format);
      return;
    }
    const auto totals = options.totals ? metric_totals(reader) : std::vector<double>{};
    if (options.format == OutputFormat::kJson) {
      print_json(options, reader.header(), totals);
    } else {
      print_table(options, reader.header(), totals);
    }
  });
}

}  // namespace orrery::report::tools

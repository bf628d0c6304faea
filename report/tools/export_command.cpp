// `orrery export REPORT --format csv|json|xml|cube`: the cube for spreadsheets,
// scripts, other sites (XML, docs/orrery-report.xsd) and CubeGUI (CUBE4).
// `--format perfetto` reads a trace instead and is handled by the viewer's
// trace reading (cli/export_dispatch.cpp); it is listed here for --help.

#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cube4_export.h"
#include "format.h"
#include "orrery/error.h"
#include "orrery/report/efficiency.h"
#include "orrery/report/trees.h"
#include "orrery/report/tools/commands.h"
#include "tool_support.h"
#include "xml_export.h"

namespace orrery::report::tools {
namespace {

struct ExportOptions {
  std::string report;
  std::string format = "csv";
  std::string output;
  std::vector<std::string> metrics;
  bool zeros = false;
};

std::vector<std::size_t> chosen_metrics(const CubeReader& reader,
                                        const std::vector<std::string>& names) {
  std::vector<std::size_t> rows;
  if (names.empty()) {
    for (std::size_t m = 0; m < reader.header().metrics.size(); ++m) {
      rows.push_back(m);
    }
  }
  for (const auto& name : names) {
    rows.push_back(reader.metric_row(name));
  }
  return rows;
}

/// Long CSV: one line per (metric, call path, location) value.
void export_csv(const CubeReader& reader, const std::vector<std::size_t>& metrics, bool zeros,
                std::ostream& out) {
  const CubeHeader& header = reader.header();
  const auto labels = callpath_labels(header);
  const std::size_t width = header.locations.size();
  out << csv_line({"metric", "unit", "callpath_row", "callpath", "rank", "thread", "value"});
  for (const std::size_t m : metrics) {
    const Metric& metric = header.metrics[m];
    const MetricValues values = reader.read_metric(m);
    for (std::size_t c = 0; c < header.callpaths.size(); ++c) {
      for (std::size_t l = 0; l < width; ++l) {
        const double value = values[c * width + l];
        if (value == 0.0 && !zeros) {
          continue;
        }
        out << csv_line({metric.name, metric.unit, std::to_string(c), labels[c],
                         std::to_string(header.locations[l].rank),
                         std::to_string(header.locations[l].thread), exact_number(value)});
      }
    }
  }
}

/// The whole header plus dense [callpath][location] matrices per metric.
void export_json(const std::string& report, const CubeReader& reader,
                 const std::vector<std::size_t>& metrics, std::ostream& out) {
  const CubeHeader& header = reader.header();
  nlohmann::json doc;
  doc["report"] = report;
  doc["attributes"] = {{"format", "orrery-cube"},
                       {"format_version", 1},
                       {"creator", header.attributes.creator},
                       {"experiment", header.attributes.experiment},
                       {"created", header.attributes.created}};
  if (const auto prediction = read_prediction(report)) {
    doc["attributes"]["what_if"] = prediction->what_if;
    doc["attributes"]["predicted_runtime"] = prediction->predicted_runtime;
  }
  if (const auto rows = read_efficiencies(report); !rows.empty()) {
    doc["efficiency"] = nlohmann::json::array();
    for (const Efficiency& row : rows) {
      doc["efficiency"].push_back(
          {{"name", row.name}, {"value", row.value}, {"description", row.description}});
    }
  }
  doc["metrics"] = nlohmann::json::array();
  for (const Metric& metric : header.metrics) {
    doc["metrics"].push_back({{"name", metric.name},
                              {"display_name", metric.display_name},
                              {"parent", metric.parent},
                              {"unit", metric.unit},
                              {"description", metric.description},
                              {"diagnosis", metric.diagnosis}});
  }
  doc["regions"] = nlohmann::json::array();
  for (const Region& region : header.regions) {
    doc["regions"].push_back({{"name", region.name},
                              {"file", region.file},
                              {"line", region.line},
                              {"paradigm", region.paradigm}});
  }
  const auto labels = callpath_labels(header);
  doc["callpaths"] = nlohmann::json::array();
  for (std::size_t c = 0; c < header.callpaths.size(); ++c) {
    doc["callpaths"].push_back({{"parent", header.callpaths[c].parent},
                                {"region", header.callpaths[c].region},
                                {"path", labels[c]}});
  }
  doc["locations"] = nlohmann::json::array();
  for (const Location& location : header.locations) {
    doc["locations"].push_back({{"rank", location.rank},
                                {"thread", location.thread},
                                {"node", location.node},
                                {"name", location.name}});
  }
  doc["values"] = nlohmann::json::object();
  const std::size_t width = header.locations.size();
  for (const std::size_t m : metrics) {
    const MetricValues values = reader.read_metric(m);
    nlohmann::json matrix = nlohmann::json::array();
    for (std::size_t c = 0; c < header.callpaths.size(); ++c) {
      matrix.push_back(std::vector<double>(values.begin() + static_cast<long>(c * width),
                                           values.begin() + static_cast<long>((c + 1) * width)));
    }
    doc["values"][header.metrics[m].name] = std::move(matrix);
  }
  out << doc.dump(1) << "\n";
}

void run_export(const ExportOptions& options) {
  const CubeReader reader = open_report(options.report);
  const auto metrics = chosen_metrics(reader, options.metrics);
  if (options.format == "cube") {
    if (options.output.empty()) throw UsageError("--format cube needs -o OUT.cubex (a binary archive)");
    if (!options.metrics.empty()) throw UsageError("--format cube writes every metric; drop --metric");
    export_cube4(reader, options.output);
    return;
  }
  std::ofstream file;
  if (!options.output.empty()) {
    file.open(options.output);
    if (!file) {
      throw InputError(options.output + ": cannot be written");
    }
  }
  std::ostream& out = options.output.empty() ? std::cout : file;
  if (options.format == "json") {
    export_json(options.report, reader, metrics, out);
  } else if (options.format == "xml") {
    export_xml(reader, metrics, options.zeros, out);
  } else {
    export_csv(reader, metrics, options.zeros, out);
  }
  out.flush();
  if (!out) {
    throw InputError((options.output.empty() ? "standard output" : options.output) +
                     ": write failed");
  }
}

}  // namespace

int export_command(int argc, char** argv) {
  CLI::App app{"Exports a report as CSV (one line per metric, call path and location; zeros "
               "left out unless --zeros), JSON (header plus one [callpath][location] matrix "
               "per metric), XML (valid against docs/orrery-report.xsd) or CUBE4 (-o OUT.cubex, "
               "for CubeGUI). Values are exclusive in both trees, as stored. "
               "'orrery export EXP --format perfetto [--from T] [--to T]' exports the trace "
               "instead, as Chrome trace-event JSON (see its --help).",
               "orrery export"};
  ExportOptions options;
  app.add_option("report", options.report, "report file (report.h5)")->required();
  app.add_option("--format", options.format, "csv (default), json, xml, cube or perfetto")
      ->check(CLI::IsMember({"csv", "json", "xml", "cube", "perfetto"}));
  app.add_option("-o,--output", options.output, "write to this file instead of standard output");
  app.add_option("-m,--metric", options.metrics, "only these metrics (repeatable; not with cube)");
  app.add_flag("--zeros", options.zeros, "CSV, XML: also write values (rows) that are zero");
  return run_tool(app, argc, argv, [&] { run_export(options); });
}

}  // namespace orrery::report::tools

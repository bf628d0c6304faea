// `orrery scaling R1.h5 R2.h5 ... [--predict P] [--by KEY] [--format table|json]`:
// per call path, a model of its time (inclusive, or --exclusive, mean per process) over the
// runs' rank counts (or a --param of the runs), its fit and its prediction
// (scaling_model.h); the call paths that scale worst; and, across the runs,
// computation scalability and global efficiency (efficiency.h).

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>

#include "format.h"
#include "orrery/error.h"
#include "orrery/report/efficiency.h"
#include "orrery/report/run_totals.h"
#include "orrery/report/scaling_model.h"
#include "orrery/report/trees.h"
#include "run_record.h"
#include "orrery/report/tools/commands.h"
#include "tool_support.h"

namespace orrery::report::tools {
namespace {

struct ScalingOptions {
  std::vector<std::string> reports;
  double predict = 0;  ///< 0: twice the largest size
  std::string by;      ///< a --param of the runs instead of the rank count
  std::size_t worst = 5;
  bool exclusive = false;  ///< the call path's own time, without its callees
  OutputFormat format = OutputFormat::kTable;
};

/// "inclusive" or "exclusive", as the models are of.
const char* value_kind(const ScalingOptions& options) {
  return options.exclusive ? "exclusive" : "inclusive";
}

/// One call path's model.
struct CallpathModel {
  std::string callpath;
  ScalingModel model;
  double predicted = 0;
};

std::size_t rank_count(const CubeHeader& header) {
  std::set<int32_t> ranks;
  for (const Location& location : header.locations) ranks.insert(location.rank);
  return ranks.size();
}

/// The run's size: its rank count, or the value of its --param `key`.
double run_size(const ScalingOptions& options, const std::string& report, const CubeHeader& header) {
  if (options.by.empty()) return static_cast<double>(rank_count(header));
  const std::string run_json = find_run_json(report, header.attributes.experiment);
  if (run_json.empty()) {
    throw InputError(report + ": no run.json beside the report or its experiment, so no --param " +
                     options.by);
  }
  const RunRecord record = read_run_record(report, run_json);
  const auto it = record.params.find(options.by);
  if (it == record.params.end()) {
    throw InputError(report + ": the run has no parameter '" + options.by +
                     "' (record it with orrery run --param " + options.by + "=VALUE)");
  }
  try {
    std::size_t used = 0;
    const double value = std::stod(it->second, &used);
    if (used == it->second.size() && value > 0) return value;
  } catch (const std::exception&) {
  }
  throw InputError(report + ": parameter " + options.by + "='" + it->second +
                   "' is not a positive number");
}

std::set<std::string> root_names(const CubeHeader& header) {
  std::set<std::string> names;
  for (const Callpath& callpath : header.callpaths) {
    if (callpath.parent < 0) names.insert(header.regions[static_cast<std::size_t>(callpath.region)].name);
  }
  return names;
}

/// Reports of another program share no root of the call tree with the first.
void check_same_program(const ScalingOptions& options, const std::vector<CubeReader>& readers) {
  const std::set<std::string> first = root_names(readers[0].header());
  for (std::size_t k = 1; k < readers.size(); ++k) {
    const std::set<std::string> roots = root_names(readers[k].header());
    if (std::none_of(roots.begin(), roots.end(), [&](const auto& name) { return first.count(name) > 0; })) {
      throw InputError(options.reports[k] + " is a report of another program than " +
                       options.reports[0] + " (no common root of the call tree: '" +
                       (roots.empty() ? std::string() : *roots.begin()) + "' vs '" +
                       (first.empty() ? std::string() : *first.begin()) + "')");
    }
  }
}

std::size_t metric_row(const CubeHeader& header, const std::string& name) {
  for (std::size_t m = 0; m < header.metrics.size(); ++m) {
    if (header.metrics[m].name == name) return m;
  }
  return header.metrics.size();
}

/// Total useful computation of each run (all its locations), from per-process totals.
std::vector<double> useful_totals(const CubeUnion& united, const RunTotals& totals,
                                  const std::vector<CubeReader>& readers) {
  std::vector<double> useful;
  const CubeHeader& header = united.header;
  const auto subtree_sum = [&](const std::vector<std::vector<double>>& run, const std::string& name) {
    const std::size_t row = metric_row(header, name);
    if (row == header.metrics.size()) return 0.0;
    double sum = 0;
    for (const std::size_t m : metric_subtree(header, row)) {
      for (const double value : run[m]) sum += std::isnan(value) ? 0.0 : value;
    }
    return sum;
  };
  for (std::size_t r = 0; r < totals.size(); ++r) {
    const double per_process = subtree_sum(totals[r], "time") - subtree_sum(totals[r], "mpi") -
                               subtree_sum(totals[r], "overhead") - subtree_sum(totals[r], "omp");
    useful.push_back(per_process * static_cast<double>(readers[r].header().locations.size()));
  }
  return useful;
}

void print_table(const ScalingOptions& options, const std::vector<double>& sizes,
                 const std::vector<CallpathModel>& models, double target,
                 const std::vector<std::vector<Efficiency>>& efficiencies,
                 const std::vector<double>& useful) {
  const std::string x = options.by.empty() ? "p" : options.by;
  std::cout << "Models of time (" << value_kind(options) << ", mean per process) over " << x << " = ";
  for (std::size_t r = 0; r < sizes.size(); ++r) std::cout << (r ? ", " : "") << format_number(sizes[r]);
  std::cout << "; chosen by leave-one-out cross-validation, fit = adjusted R^2\n\n";
  TextTable table({{"call path", TextTable::Align::kLeft},
                   {"model", TextTable::Align::kLeft},
                   {"fit", TextTable::Align::kRight},
                   {"at " + x + "=" + format_number(target) + " (s)", TextTable::Align::kRight}});
  for (const CallpathModel& row : models) {
    table.add_row({row.callpath, row.model.text(x), format_fixed(row.model.adjusted_r2, 3),
                   format_number(row.predicted)});
  }
  std::cout << table.render();
  // The worst scaling: growing models, fastest growth first, then the largest prediction.
  std::vector<const CallpathModel*> growing;
  for (const CallpathModel& row : models) {
    if (row.model.growth() > std::pair<double, int>{0, 0}) growing.push_back(&row);
  }
  std::sort(growing.begin(), growing.end(), [](const auto* a, const auto* b) {
    return a->model.growth() != b->model.growth() ? a->model.growth() > b->model.growth()
                                                  : a->predicted > b->predicted;
  });
  std::cout << "\nScaling worst (possible scalability bugs):"
            << (growing.empty() ? " none, no call path's time grows with " + x : std::string()) << "\n";
  for (std::size_t k = 0; k < growing.size() && k < options.worst; ++k) {
    std::cout << "  " << growing[k]->callpath << ": " << growing[k]->model.text(x) << "\n";
  }
  std::cout << "\nRuns:\n";
  TextTable runs({{x, TextTable::Align::kRight},
                  {"parallel efficiency", TextTable::Align::kRight},
                  {"computation scalability", TextTable::Align::kRight},
                  {"global efficiency", TextTable::Align::kRight}});
  const std::size_t reference =
      static_cast<std::size_t>(std::min_element(sizes.begin(), sizes.end()) - sizes.begin());
  for (std::size_t r = 0; r < sizes.size(); ++r) {
    const auto parallel = find_efficiency(efficiencies[r], "parallel_efficiency");
    const double scalability = useful[r] > 0 ? useful[reference] / useful[r] : 0.0;
    runs.add_row({format_number(sizes[r]), parallel ? format_fixed(*parallel, 3) : "n/a",
                  format_fixed(scalability, 3),
                  parallel ? format_fixed(*parallel * scalability, 3) : "n/a"});
  }
  std::cout << runs.render();
}

void run_scaling(ScalingOptions& options) {
  if (options.reports.size() < 3) {
    throw UsageError("needs the reports of at least 3 runs of different sizes (got " +
                     std::to_string(options.reports.size()) + ")");
  }
  std::vector<CubeReader> readers;
  readers.reserve(options.reports.size());
  for (const auto& report : options.reports) readers.push_back(open_report(report));
  check_same_program(options, readers);
  std::vector<double> sizes;
  for (std::size_t r = 0; r < readers.size(); ++r) {
    sizes.push_back(run_size(options, options.reports[r], readers[r].header()));
  }
  if (std::set<double>(sizes.begin(), sizes.end()).size() < 3) {
    throw InputError("the runs have fewer than 3 different " +
                     (options.by.empty() ? std::string("rank counts") : options.by + " values") +
                     ": a scaling model needs at least 3");
  }
  const double target = options.predict > 0 ? options.predict
                                             : 2 * *std::max_element(sizes.begin(), sizes.end());
  std::vector<const CubeHeader*> headers;
  std::vector<const CubeReader*> pointers;
  for (const auto& reader : readers) {
    headers.push_back(&reader.header());
    pointers.push_back(&reader);
  }
  const CubeUnion united = unite(headers);
  const std::size_t time = metric_row(united.header, "time");
  if (time == united.header.metrics.size()) throw InputError("the reports have no metric 'time'");
  const RunTotals totals = run_totals(pointers, united, true);
  std::vector<std::vector<double>> values;  // [run][callpath]
  for (const auto& run : totals) values.push_back(metric_values(united, run, time, {false, !options.exclusive}));
  const auto labels = callpath_labels(united.header);
  std::vector<CallpathModel> models;
  for (std::size_t c = 0; c < labels.size(); ++c) {
    std::vector<double> y;
    for (const auto& run : values) y.push_back(run[c]);
    // Call paths of every run only (absent = 0 in a run's values).
    if (std::any_of(y.begin(), y.end(), [](double v) { return !(v > 0); })) continue;
    const ScalingModel model = fit_scaling_model(sizes, y);
    models.push_back({labels[c], model, std::max(0.0, model(target))});  // no negative time
  }
  if (options.format == OutputFormat::kJson) {
    nlohmann::json out = nlohmann::json::array();
    for (const CallpathModel& row : models) {
      out.push_back({{"callpath", row.callpath},
                     {"metric", "time"},
                     {"values", value_kind(options)},
                     {"model", row.model.text(options.by.empty() ? "p" : options.by)},
                     {"predicted", row.predicted}});
    }
    std::cout << out.dump(2) << "\n";
    return;
  }
  std::vector<std::vector<Efficiency>> efficiencies;
  for (const auto& report : options.reports) efficiencies.push_back(read_efficiencies(report));
  print_table(options, sizes, models, target, efficiencies, useful_totals(united, totals, readers));
}

}  // namespace

int scaling_command(int argc, char** argv) {
  CLI::App app{"Models each call path's time (inclusive or exclusive, mean per process) over the "
               "rank counts of 3 or more runs, predicts it at another size and names the call paths that "
               "scale worst.",
               "orrery scaling"};
  ScalingOptions options;
  app.add_option("reports", options.reports, "reports of runs of one program at different sizes")
      ->required();
  app.add_option("--predict", options.predict, "the size to predict (default: twice the largest)")
      ->check(CLI::PositiveNumber);
  app.add_option("--by", options.by,
                 "model over this --param of the runs (orrery run --param KEY=VALUE) instead of "
                 "the rank count");
  app.add_option("--worst", options.worst, "how many of the worst-scaling call paths to name");
  app.add_flag("--exclusive", options.exclusive,
               "model each call path's own time (without its callees) instead of its inclusive "
               "time: the models then add up to the run's");
  add_format_option(app, options.format, {"table", "json"});
  return run_tool(app, argc, argv, [&] { run_scaling(options); });
}

}  // namespace orrery::report::tools

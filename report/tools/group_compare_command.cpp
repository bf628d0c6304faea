// `orrery compare --baseline A.h5... [--candidate B.h5...]`: see docs/design.md §6
// and docs/report.md ("Did it help?").

#include "group_compare_command.h"

#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

#include "format.h"
#include "group_inputs.h"
#include "orrery/error.h"
#include "orrery/report/run_groups.h"
#include "tool_support.h"

namespace orrery::report::tools {
namespace {

struct GroupCompareOptions {
  std::vector<std::string> baseline;
  std::vector<std::string> candidate;
  GroupSelection selection;
  GroupTest test;
  NoiseTarget target;
  std::optional<std::size_t> top;  ///< rows shown; default 30 in a table, all in CSV/JSON
  bool allow_different_programs = false;
  OutputFormat format = OutputFormat::kTable;
};

constexpr std::size_t kTableRows = 30;

std::string p_text(double p) {
  if (p == 0) return "0";
  char text[32];
  std::snprintf(text, sizeof text, p < 1e-3 ? "%.1e" : "%.3f", p);
  return text;
}

std::string change_text(const std::optional<double>& change) {
  if (!change) return "new";
  char text[32];
  std::snprintf(text, sizeof text, "%+.1f%%", 100.0 * *change);
  return text;
}

std::string mean_text(const GroupSummary& summary, const std::string& unit) {
  const double half = (summary.ci_high - summary.ci_low) / 2.0;
  return format_value(summary.sample.mean, unit) + " ± " + format_value(half, unit);
}

std::string percent_text(double fraction) {
  char text[32];
  std::snprintf(text, sizeof text, "%g%%", 100.0 * fraction);
  return text;
}

std::string group_line(const char* title, const std::vector<std::string>& paths) {
  std::string line = std::string(title) + std::to_string(paths.size()) + " runs (";
  for (std::size_t i = 0; i < paths.size(); ++i) line += (i ? ", " : "") + paths[i];
  return line + ")";
}

std::size_t shown_rows(const GroupCompareOptions& options, std::size_t rows) {
  const std::size_t limit =
      options.top ? *options.top : (options.format == OutputFormat::kTable ? kTableRows : 0);
  return limit == 0 ? rows : std::min(limit, rows);
}

nlohmann::ordered_json optional_json(const std::optional<double>& value) {
  return value ? nlohmann::ordered_json(*value) : nlohmann::ordered_json(nullptr);
}

void print_comparison(const GroupCompareOptions& options, const GroupComparison& comparison) {
  const auto& metrics = comparison.united.header.metrics;
  const std::size_t shown = shown_rows(options, comparison.rows.size());
  if (options.format == OutputFormat::kJson) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < shown; ++i) {
      const GroupComparisonRow& row = comparison.rows[i];
      out.push_back({{"metric", metrics[row.metric].name},
                     {"callpath", row.label},
                     {"baseline_mean", row.baseline.sample.mean},
                     {"baseline_ci", {row.baseline.ci_low, row.baseline.ci_high}},
                     {"candidate_mean", row.candidate.sample.mean},
                     {"candidate_ci", {row.candidate.ci_low, row.candidate.ci_high}},
                     {"change", optional_json(row.change)},
                     {"p_value", row.p_value},
                     {"significant", row.significant}});
    }
    std::cout << out.dump(2) << "\n";
    return;
  }
  if (options.format == OutputFormat::kCsv) {
    std::cout << csv_line({"metric", "callpath", "baseline_mean", "baseline_ci_low",
                           "baseline_ci_high", "candidate_mean", "candidate_ci_low",
                           "candidate_ci_high", "change", "p_value", "significant"});
    for (std::size_t i = 0; i < shown; ++i) {
      const GroupComparisonRow& row = comparison.rows[i];
      std::cout << csv_line({metrics[row.metric].name, row.label,
                             exact_number(row.baseline.sample.mean), exact_number(row.baseline.ci_low),
                             exact_number(row.baseline.ci_high), exact_number(row.candidate.sample.mean),
                             exact_number(row.candidate.ci_low), exact_number(row.candidate.ci_high),
                             row.change ? exact_number(*row.change) : "", exact_number(row.p_value),
                             row.significant ? "true" : "false"});
    }
    return;
  }
  std::size_t significant = 0;
  for (const auto& row : comparison.rows) significant += row.significant ? 1 : 0;
  std::cout << group_line("Baseline:  ", options.baseline) << "\n"
            << group_line("Candidate: ", options.candidate) << "\n"
            << "Means over runs ± half their " << percent_text(1 - options.test.alpha)
            << " confidence interval; change of the means; Welch's t-test.\n"
            << "Significant: p < " << format_number(options.test.alpha) << " and |change| >= "
            << percent_text(options.test.min_change) << ". " << significant << " of "
            << comparison.rows.size() << " metric/call path pairs changed significantly.\n\n";
  TextTable table({{"metric", TextTable::Align::kLeft},
                   {"baseline"},
                   {"candidate"},
                   {"change"},
                   {"p-value"},
                   {"significant", TextTable::Align::kLeft},
                   {"call path", TextTable::Align::kLeft}});
  for (std::size_t i = 0; i < shown; ++i) {
    const GroupComparisonRow& row = comparison.rows[i];
    const std::string& unit = metrics[row.metric].unit;
    table.add_row({metrics[row.metric].name, mean_text(row.baseline, unit),
                   mean_text(row.candidate, unit), change_text(row.change), p_text(row.p_value),
                   row.significant ? "yes" : "-", row.label});
  }
  std::cout << table.render();
  if (shown < comparison.rows.size()) {
    std::cout << "... " << comparison.rows.size() - shown << " more (--top 0 lists all)\n";
  }
}

void print_noise(const GroupCompareOptions& options, const NoiseReport& report) {
  const auto& metrics = report.united.header.metrics;
  const std::size_t shown = shown_rows(options, report.rows.size());
  auto needed_json = [](const NoiseRow& row) {
    return row.runs_needed ? nlohmann::ordered_json(*row.runs_needed)
                           : nlohmann::ordered_json(nullptr);
  };
  if (options.format == OutputFormat::kJson) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < shown; ++i) {
      const NoiseRow& row = report.rows[i];
      out.push_back({{"metric", metrics[row.metric].name},
                     {"callpath", row.label},
                     {"mean", row.summary.sample.mean},
                     {"stddev", row.summary.sample.stddev},
                     {"ci", {row.summary.ci_low, row.summary.ci_high}},
                     {"cv", optional_json(row.cv)},
                     {"runs_needed", needed_json(row)}});
    }
    std::cout << out.dump(2) << "\n";
    return;
  }
  if (options.format == OutputFormat::kCsv) {
    std::cout << csv_line({"metric", "callpath", "mean", "stddev", "ci_low", "ci_high", "cv",
                           "runs_needed"});
    for (std::size_t i = 0; i < shown; ++i) {
      const NoiseRow& row = report.rows[i];
      std::cout << csv_line({metrics[row.metric].name, row.label,
                             exact_number(row.summary.sample.mean),
                             exact_number(row.summary.sample.stddev),
                             exact_number(row.summary.ci_low), exact_number(row.summary.ci_high),
                             row.cv ? exact_number(*row.cv) : "",
                             row.runs_needed ? std::to_string(*row.runs_needed) : ""});
    }
    return;
  }
  std::cout << group_line("Noise of ", options.baseline) << "\n"
            << "Run-to-run variation per metric and call path (cv = standard deviation / mean),\n"
            << "largest values first. 'runs needed': runs per group for Welch's t-test at alpha "
            << format_number(options.target.alpha) << " to detect a "
            << percent_text(options.target.change) << " change with "
            << percent_text(options.target.power) << " probability.\n\n";
  TextTable table({{"metric", TextTable::Align::kLeft},
                   {"mean"},
                   {"stddev"},
                   {"cv"},
                   {"runs needed"},
                   {"call path", TextTable::Align::kLeft}});
  for (std::size_t i = 0; i < shown; ++i) {
    const NoiseRow& row = report.rows[i];
    const std::string& unit = metrics[row.metric].unit;
    char cv[32] = "-";
    if (row.cv) std::snprintf(cv, sizeof cv, "%.1f%%", 100.0 * *row.cv);
    table.add_row({metrics[row.metric].name, format_value(row.summary.sample.mean, unit),
                   format_value(row.summary.sample.stddev, unit), cv,
                   row.runs_needed ? std::to_string(*row.runs_needed)
                                   : (row.cv ? "> 1e6" : "-"),
                   row.label});
  }
  std::cout << table.render();
  if (shown < report.rows.size()) {
    std::cout << "... " << report.rows.size() - shown << " more (--top 0 lists all)\n";
  }
}

void run_group_compare(GroupCompareOptions& options) {
  if (options.baseline.size() < 2) {
    throw UsageError("--baseline has " + std::to_string(options.baseline.size()) +
                     " report; the statistics need at least 2 runs per group (repeat the run)");
  }
  if (!options.candidate.empty() && options.candidate.size() < 2) {
    throw UsageError("--candidate has 1 report; the statistics need at least 2 runs per group "
                     "(repeat the run)");
  }
  options.target.alpha = options.test.alpha;
  std::vector<std::string> seen;
  const auto baseline_readers = open_group(options.baseline, seen);
  const auto candidate_readers = open_group(options.candidate, seen);
  const auto baseline = group_runs(options.baseline, baseline_readers);
  const auto candidate = group_runs(options.candidate, candidate_readers);
  if (!options.allow_different_programs) {
    std::vector<GroupRun> all = baseline;
    all.insert(all.end(), candidate.begin(), candidate.end());
    check_same_program(all);
  }
  if (candidate.empty()) {
    print_noise(options, noise_report(baseline, options.selection, options.target));
  } else {
    print_comparison(options, compare_groups(baseline, candidate, options.selection, options.test));
  }
}

}  // namespace

bool wants_group_compare(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view word(argv[i]);
    if (word == "--") break;
    for (const std::string_view option : {"--baseline", "--candidate"}) {
      if (word == option || (word.starts_with(option) && word[option.size()] == '=')) return true;
    }
  }
  return false;
}

int group_compare_command(int argc, char** argv) {
  CLI::App app{"Groups of repeated runs: per metric and call path, each group's mean and "
               "confidence interval, the relative change of the means, Welch's t-test and a "
               "verdict. With --baseline alone: the run-to-run noise and the runs a change "
               "needs to be detected. Values are call-path totals over processes (sub-metrics "
               "included unless --exclusive-metric).",
               "orrery compare"};
  GroupCompareOptions options;
  app.add_option("--baseline", options.baseline, "reports of the runs before the change (2 or more)")
      ->required()
      ->expected(1, 1 << 20);
  app.add_option("--candidate", options.candidate, "reports of the runs after the change (2 or more)")
      ->expected(1, 1 << 20);
  app.add_option("--alpha", options.test.alpha,
                 "significance level; the intervals are (1 - alpha) confidence intervals")
      ->capture_default_str()
      ->check(CLI::Range(1e-12, 0.5));
  add_percent_option(app, "--min-change", options.test.min_change,
                     "smallest relative change called significant, in percent (default 2%)");
  add_percent_option(app, "--detect", options.target.change,
                     "noise report: the change to detect, in percent (default 10%)");
  app.add_option("--power", options.target.power,
                 "noise report: probability of detecting that change")
      ->capture_default_str()
      ->check(CLI::Range(0.5, 0.999));
  app.add_option("-m,--metric", options.selection.metrics,
                 "metric(s) to compare (repeatable; default: every metric)");
  app.add_flag("--exclusive-metric", options.selection.view.exclusive_metric,
               "only the metric itself, without its sub-metrics");
  app.add_flag("-i,--inclusive", options.selection.view.inclusive,
               "compare inclusive call-path values");
  app.add_flag("--per-process", options.selection.per_process,
               "divide each run's values by its number of locations");
  app.add_option("-k,--top", options.top,
                 "rows shown, significant and largest first (0 = all; default 30 in a table, "
                 "all in CSV and JSON)");
  app.add_flag("--allow-different-programs", options.allow_different_programs,
               "group runs even if their run.json name different programs");
  add_format_option(app, options.format);
  // --baseline takes any word as a report, "--help" too: look for help first.
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--help" || std::string_view(argv[i]) == "-h") {
      std::cout << app.help();
      return kExitOk;
    }
  }
  return run_tool(app, argc, argv, [&] { run_group_compare(options); });
}

}  // namespace orrery::report::tools

// Findings from the wait-state and delay-cost metrics (findings.h).
//
// Gain: with a `performance_impact` metric (critical-path analysis), the
// largest impact of a root-cause call path, summed over the processes (the
// run-time saving of balancing it); otherwise an estimate from the delay costs: the most any single
// process waited in the pattern, times the share of the waiting the delay
// costs explain. Removing the delay shortens that process's waiting by at
// most this much, and the run ends with its slowest process, so summed
// waiting over processes would overstate the saving.

#include "orrery/report/findings.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <numeric>
#include <optional>
#include <string_view>

#include "orrery/report/clock_record.h"
#include "orrery/report/hdf5_io.h"
#include "orrery/report/trees.h"

namespace orrery::report {
namespace {

/// A wait-state pattern and the delay metrics of its root causes (docs/design.md §4).
struct PatternCosts {
  std::string_view pattern;
  std::string_view delay;  ///< prefix of `_short_term` / `_long_term`; empty if none
};

constexpr std::array<PatternCosts, 12> kPatterns{{
    {"late_sender", "delay_late_sender"},
    {"late_receiver", "delay_late_receiver"},
    {"wait_at_barrier", "delay_barrier"},
    {"wait_at_nxn", "delay_nxn"},
    {"late_broadcast", "delay_late_broadcast"},
    {"early_reduce", "delay_early_reduce"},
    {"early_scan", ""},
    {"wait_at_neighbor", ""},
    {"init_completion", ""},
    {"finalize_wait", ""},
    {"barrier_completion", ""},
    {"nxn_completion", ""},
}};

std::optional<std::size_t> find_metric(const CubeHeader& header, std::string_view name) {
  for (std::size_t m = 0; m < header.metrics.size(); ++m) {
    if (header.metrics[m].name == name) return m;
  }
  return std::nullopt;
}

/// Call paths per band when a metric is read in bands of whole rows: about
/// 2^22 values (32 MiB), so that an ordinary cube reads in one band (whole
/// metrics, chunks inflated in parallel) and a large one in bounded memory.
std::size_t band_rows(const CubeHeader& header) {
  constexpr std::size_t kBandValues = std::size_t{1} << 22;
  return std::max<std::size_t>(1, kBandValues / std::max<std::size_t>(1, header.locations.size()));
}

/// Calls `visit(first call path, bands)` for each band of call paths in
/// order; bands[k]: metric group k (a metric with its sub-metrics, summed)
/// over the band's rows, [callpath - first][location], NaN (absent ranks) as 0.
void for_each_band(const CubeReader& reader, const std::vector<std::vector<std::size_t>>& groups,
                   const std::function<void(std::size_t, const std::vector<MetricValues>&)>& visit) {
  const CubeHeader& header = reader.header();
  const std::size_t callpaths = header.callpaths.size(), per_band = band_rows(header);
  std::vector<MetricValues> bands(groups.size());
  for (std::size_t first = 0; first < callpaths; first += per_band) {
    const std::size_t count = std::min(per_band, callpaths - first);
    for (std::size_t k = 0; k < groups.size(); ++k) {
      bands[k].assign(count * header.locations.size(), 0.0);
      for (const std::size_t m : groups[k]) reader.add_rows(m, first, count, bands[k]);
      for (double& v : bands[k]) {
        if (std::isnan(v)) v = 0;
      }
    }
    visit(first, bands);
  }
}

/// One metric at one call path, NaN as 0.
std::vector<double> row_of(const CubeReader& reader, std::size_t metric, std::size_t callpath) {
  std::vector<double> values = reader.read_callpath(metric, callpath);
  for (double& v : values) {
    if (std::isnan(v)) v = 0;
  }
  return values;
}

/// The `count` largest entries (index, value), positive only.
std::vector<std::pair<std::size_t, double>> largest(const std::vector<double>& values,
                                                    std::size_t count) {
  std::vector<std::size_t> order(values.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  count = std::min(count, order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(count), order.end(),
                    [&](std::size_t a, std::size_t b) {
                      return values[a] != values[b] ? values[a] > values[b] : a < b;
                    });
  std::vector<std::pair<std::size_t, double>> out;
  for (std::size_t k = 0; k < count; ++k) {
    if (values[order[k]] > 0) out.emplace_back(order[k], values[order[k]]);
  }
  return out;
}

std::string leaf(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

/// Seconds as the rest of a finding prints them: microseconds below a
/// second (a short run's costs must not read "0.000 s"), milliseconds above.
std::string seconds_text(double seconds) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, seconds < 1 ? "%.6f s" : "%.3f s", seconds);
  return buffer;
}

std::string rank_list(const std::vector<RankValue>& ranks) {
  std::string text = ranks.size() == 1 ? "rank " : "ranks ";
  for (std::size_t k = 0; k < ranks.size(); ++k) {
    text += (k == 0 ? "" : k + 1 == ranks.size() ? " and " : ", ") + std::to_string(ranks[k].rank);
  }
  return text;
}

}  // namespace

std::string root_cause_advice(const RootCauseFinding& finding, const std::string& diagnosis) {
  if (finding.causes.empty()) {
    return diagnosis.empty() ? std::string("No delay costs explain this waiting.") : diagnosis;
  }
  const RootCause& top = finding.causes.front();
  std::string text = "Reduce or balance the time " + rank_list(top.ranks) + " spend" +
                     (top.ranks.size() == 1 ? "s" : "") + " in " + leaf(top.path) + " (" +
                     top.path + ") before " +
                     (top.ranks.size() == 1 ? "it synchronizes" : "they synchronize") +
                     ": it causes " + seconds_text(top.short_term) + " of " + finding.title +
                     " directly";
  if (top.long_term > 0) {
    text += " and " + seconds_text(top.long_term) + " more that the waiting passed on to further processes";
  }
  text += ". Give " + std::string(top.ranks.size() == 1 ? "that process" : "those processes") +
          " less of that work, or move it after the synchronization.";
  // A program's outermost region: the measurement saw no function inside it
  // (MPI calls only), so the advice cannot name the code to change.
  if (top.path.find('/') == std::string::npos) {
    text += " " + top.path + " is the program's outermost region: only its MPI calls were measured. "
            "To see which of its functions takes that time, build it with orrery-instrument (compiler "
            "hooks) or mark regions with ORRERY_REGION_BEGIN/END, and measure again.";
  }
  if (finding.explained < 0.5) {
    text += " Only part of the waiting is explained by delays (the processes may start out of "
            "step, or the time goes into the MPI calls themselves).";
  }
  return text;
}

namespace {

/// What every finding reads of the report once.
struct FindingInputs {
  explicit FindingInputs(const std::string& path)
      : reader(path), header(reader.header()), labels(callpath_labels(header)),
        callpaths(header.callpaths.size()), locations(header.locations.size()),
        corrections(locations, 0.0) {
    // The run's time: the inclusive total of `time` (all its sub-metrics).
    if (const auto time = find_metric(header, "time")) {
      for_each_band(reader, {metric_subtree(header, *time)},
                    [&](std::size_t, const std::vector<MetricValues>& bands) {
                      run_time = std::accumulate(bands[0].begin(), bands[0].end(), run_time);
                    });
    }
    impact = find_metric(header, "performance_impact");
    if (const auto record = read_clock_record(path)) {
      for (const ClockCorrectionRow& row : record->corrections) {
        for (std::size_t l = 0; l < locations; ++l) {
          if (header.locations[l].rank == row.rank) corrections[l] += row.corrected;
        }
      }
    }
  }
  [[nodiscard]] int rank_of(std::size_t location) const { return header.locations[location].rank; }

  const CubeReader reader;
  const CubeHeader& header;
  const std::vector<std::string> labels;
  const std::size_t callpaths;
  const std::size_t locations;
  double run_time = 0;
  std::optional<std::size_t> impact;  ///< its metric row, if the report has it
  std::vector<double> corrections;  ///< clock-condition corrections per location
};

/// A pattern's waiting (the metric with its sub-metrics) read in bands: its
/// total, and its sums per call path and per location.
struct Waiting {
  double total = 0;
  std::vector<double> by_callpath, by_location;
};

Waiting read_waiting(const FindingInputs& in, std::size_t row) {
  Waiting waiting{0, std::vector<double>(in.callpaths, 0.0), std::vector<double>(in.locations, 0.0)};
  for_each_band(in.reader, {metric_subtree(in.header, row)},
                [&](std::size_t first, const std::vector<MetricValues>& bands) {
                  const MetricValues& band = bands[0];
                  waiting.total = std::accumulate(band.begin(), band.end(), waiting.total);
                  for (std::size_t c = 0; c * in.locations < band.size(); ++c) {
                    for (std::size_t l = 0; l < in.locations; ++l) {
                      waiting.by_callpath[first + c] += band[c * in.locations + l];
                      waiting.by_location[l] += band[c * in.locations + l];
                    }
                  }
                });
  return waiting;
}

/// Where: the call path with most waiting and the most affected processes.
void locate_waiting(const FindingInputs& in, const Waiting& waiting, RootCauseFinding& finding) {
  const auto hottest = largest(waiting.by_callpath, 1);
  if (!hottest.empty()) {
    finding.callpath = hottest.front().first;
    finding.path = in.labels[finding.callpath];
  }
  for (const auto& [l, value] : largest(waiting.by_location, 3)) {
    finding.affected.push_back({in.rank_of(l), value});
  }
}

/// Why: the three call paths with the largest delay costs of the pattern and
/// the processes that carry them (added to `involved`); returns the
/// short-term costs in total (0 without delay metrics).
double attach_causes(const FindingInputs& in, const PatternCosts& entry, RootCauseFinding& finding,
                     std::vector<std::size_t>& involved) {
  if (entry.delay.empty()) return 0;
  const auto short_row = find_metric(in.header, std::string(entry.delay) + "_short_term");
  const auto long_row = find_metric(in.header, std::string(entry.delay) + "_long_term");
  if (!short_row || !long_row) return 0;
  const std::size_t width = in.locations;
  double short_total = 0, long_total = 0;
  std::vector<double> costs(in.callpaths, 0.0);
  for_each_band(in.reader, {{*short_row}, {*long_row}},
                [&](std::size_t first, const std::vector<MetricValues>& bands) {
                  const MetricValues& short_term = bands[0];
                  const MetricValues& long_term = bands[1];
                  short_total = std::accumulate(short_term.begin(), short_term.end(), short_total);
                  long_total = std::accumulate(long_term.begin(), long_term.end(), long_total);
                  for (std::size_t c = 0; c * width < short_term.size(); ++c) {
                    for (std::size_t l = 0; l < width; ++l) {
                      costs[first + c] += short_term[c * width + l] + long_term[c * width + l];
                    }
                  }
                });
  finding.delay_metric = std::string(entry.delay);
  finding.delay_costs = short_total + long_total;
  for (const auto& [c, total] : largest(costs, 3)) {
    RootCause cause;
    cause.callpath = c;
    cause.path = in.labels[c];
    const std::vector<double> short_term = row_of(in.reader, *short_row, c);
    const std::vector<double> long_term = row_of(in.reader, *long_row, c);
    std::vector<double> per_location(width, 0.0);
    for (std::size_t l = 0; l < width; ++l) {
      cause.short_term += short_term[l];
      cause.long_term += long_term[l];
      per_location[l] = short_term[l] + long_term[l];
    }
    // The processes that carry most of it (at least 10% of the largest).
    const auto carriers = largest(per_location, 4);
    for (const auto& [l, value] : carriers) {
      if (value < 0.1 * carriers.front().second) break;
      cause.ranks.push_back({in.rank_of(l), value});
      involved.push_back(l);
    }
    finding.causes.push_back(std::move(cause));
  }
  return short_total;
}

/// Gain: the explained part of the most any process waited, or, where the
/// critical path was followed, the causes' performance impact.
void estimate_gain(const FindingInputs& in, const PatternCosts& entry, double most_waited,
                   RootCauseFinding& finding) {
  finding.gain = most_waited * finding.explained;
  finding.gain_basis = entry.delay.empty() ? "no delay analysis for this pattern" : "delay costs";
  if (!in.impact || finding.causes.empty()) return;
  // performance_impact of a call path is spread over the processes that
  // waited for its imbalance; its sum over them is the gain.
  double gain = 0;
  for (const RootCause& cause : finding.causes) {
    double sum = 0;
    for (const double value : in.reader.read_callpath(*in.impact, cause.callpath)) {
      if (!std::isnan(value)) sum += value;
    }
    gain = std::max(gain, sum);
  }
  if (gain > 0) {
    finding.gain = std::min(gain, finding.waiting);
    finding.gain_basis = "performance_impact";
  }
}

}  // namespace

std::string findings_text(const std::vector<RootCauseFinding>& findings) {
  if (findings.empty()) return "No wait states: nothing to explain.\n";
  std::string text;
  char line[256];
  for (std::size_t k = 0; k < findings.size(); ++k) {
    const RootCauseFinding& f = findings[k];
    std::snprintf(line, sizeof line, "%zu. %s: %.6f s (%.1f%% of time)\n", k + 1, f.title.c_str(),
                  f.waiting, 100.0 * f.share);
    text += line;
    std::string where = "   where: " + f.path;
    if (!f.affected.empty()) {
      where += ", most affected: ";
      for (std::size_t r = 0; r < f.affected.size(); ++r) {
        std::snprintf(line, sizeof line, "%srank %d (%.6f s)", r == 0 ? "" : ", ",
                      f.affected[r].rank, f.affected[r].seconds);
        where += line;
      }
    }
    text += where + "\n";
    if (f.causes.empty()) {
      text += "   why:   no delay costs recorded for this pattern\n";
    }
    for (std::size_t c = 0; c < f.causes.size(); ++c) {
      const RootCause& cause = f.causes[c];
      std::snprintf(line, sizeof line, "%s%s on %s: %.6f s short-term + %.6f s long-term\n",
                    c == 0 ? "   why:   " : "          ", cause.path.c_str(),
                    rank_list(cause.ranks).c_str(), cause.short_term, cause.long_term);
      text += line;
    }
    std::snprintf(line, sizeof line, "   gain:  about %.6f s (from %s)\n", f.gain,
                  f.gain_basis.c_str());
    text += line;
    std::snprintf(line, sizeof line,
                  "   confidence: delay costs explain %.0f%% of the waiting; %.0f clock "
                  "correction%s on these ranks\n",
                  100.0 * f.explained, f.clock_corrections, f.clock_corrections == 1 ? "" : "s");
    text += line;
    text += "   advice: " + f.advice + "\n";
  }
  return text;
}

std::vector<RootCauseFinding> root_cause_findings(const std::string& path, std::size_t top) {
  const FindingInputs in(path);
  std::vector<RootCauseFinding> findings;
  for (const PatternCosts& entry : kPatterns) {
    const auto row = find_metric(in.header, entry.pattern);
    if (!row) continue;
    const Waiting waiting = read_waiting(in, *row);
    RootCauseFinding finding;
    finding.waiting = waiting.total;
    if (finding.waiting <= 0) continue;
    const Metric& metric = in.header.metrics[*row];
    finding.pattern = metric.name;
    finding.title = metric.display_name.empty() ? metric.name : metric.display_name;
    finding.share = in.run_time > 0 ? finding.waiting / in.run_time : 0;
    locate_waiting(in, waiting, finding);
    const std::vector<double>& by_location = waiting.by_location;
    std::vector<std::size_t> involved;  // locations of the affected and the causes
    for (const auto& [l, value] : largest(by_location, in.locations)) involved.push_back(l);
    const double short_total = attach_causes(in, entry, finding, involved);
    finding.explained = std::clamp(short_total / finding.waiting, 0.0, 1.0);
    std::sort(involved.begin(), involved.end());
    involved.erase(std::unique(involved.begin(), involved.end()), involved.end());
    for (const std::size_t l : involved) finding.clock_corrections += in.corrections[l];
    double most_waited = 0;
    for (const double v : by_location) most_waited = std::max(most_waited, v);
    estimate_gain(in, entry, most_waited, finding);
    finding.advice = root_cause_advice(finding, metric.diagnosis);
    findings.push_back(std::move(finding));
  }
  std::stable_sort(findings.begin(), findings.end(),
                   [](const RootCauseFinding& a, const RootCauseFinding& b) {
                     return a.gain != b.gain ? a.gain > b.gain : a.waiting > b.waiting;
                   });
  if (top > 0 && findings.size() > top) findings.resize(top);
  return findings;
}

}  // namespace orrery::report

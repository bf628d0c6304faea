// `orrery score EXP`: from a profile (or an analyzed trace), how large a trace
// of the same run would be per region and per rank, the buffer it needs, and
// a filter file that excludes the short, very frequent user and compiler
// regions that usually make a trace explode (docs/report.md, "orrery score").

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>

#include "format.h"
#include "orrery/error.h"
#include "orrery/report/trees.h"
#include "orrery/report/tools/commands.h"
#include "tool_support.h"

namespace orrery::report::tools {
namespace {

namespace fs = std::filesystem;

/// Bytes the measurement buffer takes per event (measure/lib/src/event_buffer.cpp:
/// a 9-byte header plus the kind's payload). A visit is an Enter and a Leave.
constexpr double kBytesPerVisit = 2 * (9 + 4);
constexpr double kBytesPerMessage = 9 + 20;         ///< MpiSend or MpiRecv
constexpr double kBytesPerCollective = 9 + 9 + 25;  ///< MpiCollectiveBegin + End
constexpr double kMiB = 1024.0 * 1024.0;

struct ScoreOptions {
  std::string input;
  std::string output;
  double max_time_per_visit_us = 10;
  double min_share_percent = 1;
  std::size_t top = 20;
  OutputFormat format = OutputFormat::kTable;
};

/// One region's share of the estimated trace, over all its call paths.
struct RegionScore {
  std::string name;
  std::string paradigm;
  double visits = 0;
  double time = 0;  ///< inclusive seconds, summed over call paths that are not nested in each other
  std::vector<double> bytes;  ///< per location
  bool calls_mpi = false;
  bool root = false;
  bool exclude = false;
  [[nodiscard]] double max_bytes() const { return bytes.empty() ? 0 : *std::max_element(bytes.begin(), bytes.end()); }
  [[nodiscard]] double total_bytes() const {
    double sum = 0;
    for (const double b : bytes) sum += b;
    return sum;
  }
};

struct Score {
  std::string report;
  std::vector<RegionScore> regions;  ///< largest estimated share first
  std::vector<double> rank_bytes;    ///< per location, everything
  std::vector<double> kept_bytes;    ///< per location, without the excluded regions
  std::vector<int32_t> ranks;
};

std::string report_path(const std::string& input) {
  if (fs::is_directory(input)) {
    const fs::path report = fs::path(input) / "report.h5";
    if (fs::exists(report)) return report.string();
    if (fs::exists(fs::path(input) / "traces.otf2")) {
      throw InputError(input + ": a trace without a report; analyze it first (mpirun -np N orrery-analyze " +
                       input + ") or measure a profile (orrery run --mode profile)");
    }
    throw InputError(input + ": no report.h5 (measure with orrery run --mode profile)");
  }
  return input;
}

MetricValues metric_or_zeros(const CubeReader& reader, const std::string& name, bool with_children) {
  const CubeHeader& header = reader.header();
  for (std::size_t m = 0; m < header.metrics.size(); ++m) {
    if (header.metrics[m].name == name) return load_metric(reader, m, !with_children);
  }
  return MetricValues(header.callpaths.size() * header.locations.size(), 0.0);
}

/// A region name as a filter pattern: fnmatch-escaped, so names with * ? [ match only themselves.
std::string filter_pattern(const std::string& name) {
  std::string out;
  for (const char c : name) {
    if (c == '*' || c == '?' || c == '[' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

Score compute(const ScoreOptions& options) {
  Score score;
  score.report = report_path(options.input);
  const CubeReader reader = open_report(score.report);
  const CubeHeader& header = reader.header();
  const std::size_t paths = header.callpaths.size();
  const std::size_t width = header.locations.size();
  const MetricValues visits = metric_or_zeros(reader, "visits", false);
  const MetricValues sends = metric_or_zeros(reader, "sends", false);
  const MetricValues receives = metric_or_zeros(reader, "receives", false);
  const MetricValues collectives = metric_or_zeros(reader, "collectives", false);
  MetricValues time = metric_or_zeros(reader, "time", true);
  make_callpath_inclusive(header, time);

  // A call path "calls MPI" when an MPI region is in its subtree (pre-order: children after parents).
  std::vector<bool> calls_mpi(paths, false);
  for (std::size_t c = paths; c-- > 0;) {
    const Region& region = header.regions[static_cast<std::size_t>(header.callpaths[c].region)];
    if (region.paradigm == "mpi") calls_mpi[c] = true;
    const int32_t parent = header.callpaths[c].parent;
    if (calls_mpi[c] && parent >= 0) calls_mpi[static_cast<std::size_t>(parent)] = true;
  }
  std::map<int32_t, std::size_t> index;  // region row -> score
  score.rank_bytes.assign(width, 0.0);
  for (std::size_t c = 0; c < paths; ++c) {
    const int32_t region_row = header.callpaths[c].region;
    auto [it, added] = index.emplace(region_row, score.regions.size());
    if (added) {
      const Region& region = header.regions[static_cast<std::size_t>(region_row)];
      RegionScore entry;
      entry.name = region.name;
      entry.paradigm = region.paradigm;
      entry.bytes.assign(width, 0.0);
      score.regions.push_back(std::move(entry));
    }
    RegionScore& entry = score.regions[it->second];
    entry.calls_mpi = entry.calls_mpi || calls_mpi[c];
    entry.root = entry.root || header.callpaths[c].parent < 0;
    // Recursion would count the nested call paths' time twice: only the outermost.
    bool nested = false;
    for (int32_t p = header.callpaths[c].parent; p >= 0 && !nested; p = header.callpaths[static_cast<std::size_t>(p)].parent) {
      nested = header.callpaths[static_cast<std::size_t>(p)].region == region_row;
    }
    for (std::size_t l = 0; l < width; ++l) {
      const std::size_t cell = c * width + l;
      const double bytes = visits[cell] * kBytesPerVisit + (sends[cell] + receives[cell]) * kBytesPerMessage +
                           collectives[cell] * kBytesPerCollective;
      entry.bytes[l] += bytes;
      entry.visits += visits[cell];
      if (!nested) entry.time += time[cell];
      score.rank_bytes[l] += bytes;
    }
  }
  double total = 0;
  for (const double b : score.rank_bytes) total += b;
  score.kept_bytes = score.rank_bytes;
  for (RegionScore& entry : score.regions) {
    const double per_visit_us = entry.visits > 0 ? entry.time / entry.visits * 1e6 : INFINITY;
    entry.exclude = (entry.paradigm == "compiler" || entry.paradigm == "user") && !entry.calls_mpi &&
                    !entry.root && per_visit_us < options.max_time_per_visit_us && total > 0 &&
                    entry.total_bytes() / total * 100 >= options.min_share_percent;
    if (entry.exclude) {
      // Its visits go; messages and collectives stay (there are none below it).
      for (std::size_t l = 0; l < width; ++l) score.kept_bytes[l] -= entry.bytes[l];
    }
  }
  std::stable_sort(score.regions.begin(), score.regions.end(),
                   [](const RegionScore& a, const RegionScore& b) { return a.total_bytes() > b.total_bytes(); });
  for (const Location& location : header.locations) score.ranks.push_back(location.rank);
  return score;
}

/// A buffer that holds `bytes` with 10 % to spare, in whole MiB (at least 1).
std::string buffer_size(double bytes) {
  const auto mib = static_cast<long long>(std::max(1.0, std::ceil(bytes * 1.1 / kMiB)));
  return std::to_string(mib) + "M";
}

double largest(const std::vector<double>& values) {
  return values.empty() ? 0 : *std::max_element(values.begin(), values.end());
}

std::string default_output(const ScoreOptions& options, const std::string& report) {
  if (!options.output.empty()) return options.output;
  const fs::path dir = fs::is_directory(options.input) ? fs::path(options.input) : fs::path(report).parent_path();
  return (dir / "orrery.filter").string();
}

void write_filter(const std::string& path, const Score& score, const ScoreOptions& options) {
  std::ofstream out(path, std::ios::trunc);
  if (!out) throw InputError(path + ": cannot be written");
  out << "# Suggested by orrery score " << score.report << "\n"
      << "# Excludes user and compiler regions that call no MPI, take less than "
      << format_number(options.max_time_per_visit_us) << " us per visit and at least "
      << format_number(options.min_share_percent) << " % of the estimated trace.\n"
      << "# Use it with: orrery run --mode trace --filter " << path << " -- ...\n";
  for (const RegionScore& entry : score.regions) {
    if (entry.exclude) out << "EXCLUDE " << filter_pattern(entry.name) << "\n";
  }
  out.flush();
  if (!out) throw InputError(path + ": write failed");
}

void print_json(const Score& score, const std::string& filter) {
  nlohmann::json out;
  out["report"] = score.report;
  out["filter"] = filter;
  out["bytes_per_rank"] = score.rank_bytes;
  out["bytes_per_rank_filtered"] = score.kept_bytes;
  out["ranks"] = score.ranks;
  out["buffer"] = buffer_size(largest(score.rank_bytes));
  out["buffer_filtered"] = buffer_size(largest(score.kept_bytes));
  out["regions"] = nlohmann::json::array();
  for (const RegionScore& entry : score.regions) {
    out["regions"].push_back({{"region", entry.name},
                              {"paradigm", entry.paradigm},
                              {"visits", entry.visits},
                              {"time", entry.time},
                              {"time_per_visit", entry.visits > 0 ? entry.time / entry.visits : 0.0},
                              {"bytes_per_rank", entry.bytes},
                              {"calls_mpi", entry.calls_mpi},
                              {"exclude", entry.exclude}});
  }
  std::cout << out.dump(1) << "\n";
}

void print_table(const Score& score, const std::string& filter, std::size_t top) {
  const double total = [&] {
    double sum = 0;
    for (const double b : score.rank_bytes) sum += b;
    return sum;
  }();
  TextTable table({{"region", TextTable::Align::kLeft}, {"type", TextTable::Align::kLeft}, {"visits"},
                   {"time/visit"}, {"max bytes/rank"}, {"share"}, {"filter", TextTable::Align::kLeft}});
  std::size_t shown = 0;
  for (const RegionScore& entry : score.regions) {
    if (top > 0 && shown++ >= top) break;
    table.add_row({entry.name, entry.paradigm, format_value(entry.visits, "occ"),
                   entry.visits > 0 ? format_value(entry.time / entry.visits, "sec") : "-",
                   format_value(entry.max_bytes(), "bytes"), format_percent(entry.total_bytes(), total),
                   entry.exclude ? "EXCLUDE" : ""});
  }
  std::cout << "Estimated trace of " << score.report << " (measurement buffer encoding)\n\n"
            << table.render() << "\n";
  const auto worst = std::max_element(score.rank_bytes.begin(), score.rank_bytes.end());
  const auto worst_rank = worst == score.rank_bytes.end() ? 0 : score.ranks[static_cast<std::size_t>(worst - score.rank_bytes.begin())];
  std::cout << "Per rank: largest " << format_value(largest(score.rank_bytes), "bytes") << " (rank " << worst_rank
            << "), all ranks " << format_value(total, "bytes") << "; predicted buffer: --buffer "
            << buffer_size(largest(score.rank_bytes)) << "\n";
  std::cout << "With the suggested filter: largest " << format_value(largest(score.kept_bytes), "bytes")
            << " per rank; predicted buffer: --buffer " << buffer_size(largest(score.kept_bytes)) << "\n";
  std::cout << "Filter written to " << filter << "; trace with: orrery run --mode trace --filter " << filter
            << " --buffer " << buffer_size(largest(score.kept_bytes)) << " -- ...\n";
}

}  // namespace

int score_command(int argc, char** argv) {
  CLI::App app{"Estimates the size of a trace per region and per rank from a profile (orrery run "
               "--mode profile) or an analyzed trace, predicts the measurement buffer it needs, and "
               "writes a filter file excluding short, very frequent user and compiler regions that "
               "call no MPI.",
               "orrery score"};
  ScoreOptions options;
  app.add_option("experiment", options.input, "experiment directory with report.h5, or a report")->required();
  app.add_option("-o,--output", options.output, "filter file to write (default EXP/orrery.filter)");
  app.add_option("--max-time-per-visit", options.max_time_per_visit_us,
                 "exclude only regions shorter than this per visit, in microseconds")
      ->capture_default_str()->check(CLI::PositiveNumber);
  app.add_option("--min-share", options.min_share_percent,
                 "exclude only regions with at least this percentage of the trace")
      ->capture_default_str()->check(CLI::Range(0.0, 100.0));
  app.add_option("-k,--top", options.top, "regions to list (0 = all)")->capture_default_str();
  add_format_option(app, options.format, {"table", "json"});
  return run_tool(app, argc, argv, [&] {
    const Score score = compute(options);
    const std::string filter = default_output(options, score.report);
    write_filter(filter, score, options);
    if (options.format == OutputFormat::kJson) {
      print_json(score, filter);
    } else {
      print_table(score, filter, options.top);
    }
  });
}

}  // namespace orrery::report::tools

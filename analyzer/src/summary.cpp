#include "orrery/analyzer/summary.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <vector>

#include "orrery/report/trees.h"

namespace orrery::analyzer {
namespace {

std::vector<std::size_t> subtree(const report::CubeHeader& header, std::size_t row) {
  std::vector<std::size_t> rows{row};
  for (std::size_t m = row + 1; m < header.metrics.size(); ++m) {
    const int32_t parent = header.metrics[m].parent;
    if (parent >= 0 && std::find(rows.begin(), rows.end(), static_cast<std::size_t>(parent)) !=
                           rows.end()) {
      rows.push_back(m);
    }
  }
  return rows;
}

/// A number with a fixed count of decimals.
std::string format(int decimals, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  return buffer;
}

/// A buffer flush of the measurement: Orrery's ORRERY_FLUSH, Score-P's
/// TRACE BUFFER FLUSH (regions of paradigm measurement named "...flush...").
bool is_flush_region(const report::Region& region) {
  if (region.paradigm != "measurement") return false;
  std::string lower = region.name;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower.find("flush") != std::string::npos;
}

/// docs/design.md §3: a full buffer is flushed and recorded "so the analysis can
/// warn" — the flush stalls the rank and shifts everything after it.
void warn_about_flushes(std::ostream& out, const report::CubeHeader& header,
                        const SummaryDigest& digest, const patterns::PatternRegistry& registry) {
  const std::vector<double>& visits = digest.by_callpath().at(registry.row("visits"));
  double flushes = 0;
  std::vector<std::size_t> flush_paths;
  for (std::size_t c = 0; c < header.callpaths.size() && c < visits.size(); ++c) {
    const auto region = static_cast<std::size_t>(header.callpaths[c].region);
    if (region < header.regions.size() && is_flush_region(header.regions[region])) {
      flushes += visits[c];
      flush_paths.push_back(c);
    }
  }
  if (flushes <= 0) return;
  // Their time is overhead at those call paths; which ranks flushed.
  const std::vector<double>& overhead = digest.by_callpath().at(registry.row("overhead"));
  double seconds = 0;
  for (std::size_t c : flush_paths) seconds += c < overhead.size() ? overhead[c] : 0.0;
  const std::vector<double>& per_rank = digest.by_location().at(registry.row("overhead"));
  std::string ranks;
  std::size_t listed = 0, flushing = 0;
  for (std::size_t l = 0; l < per_rank.size(); ++l) {
    if (per_rank[l] <= 0) continue;
    ++flushing;
    if (listed++ < 8) ranks += (ranks.empty() ? "" : ", ") + std::to_string(l);
  }
  if (flushing > listed) ranks += " and " + std::to_string(flushing - listed) + " more";
  out << "Warning: the measurement flushed its trace buffer " << format(0, flushes)
      << " times (" << format(6, seconds) << " s, counted as overhead"
      << (ranks.empty() ? std::string() : "; ranks " + ranks)
      << "). A flush stalls its rank and delays what follows; a larger buffer avoids it "
         "(orrery run --buffer SIZE).\n";
}

}  // namespace

SummaryDigest::SummaryDigest(const report::CubeHeader& header)
    : callpaths_(header.callpaths.size()),
      locations_(header.locations.size()),
      by_callpath_(header.metrics.size()),
      by_location_(header.metrics.size()) {}

void SummaryDigest::add(std::size_t metric, const report::MetricValues& values) {
  add_block(metric, values.data(), 0, locations_);
}

void SummaryDigest::add_block(std::size_t metric, const double* values, std::size_t first,
                              std::size_t count) {
  std::vector<double>& per_callpath = by_callpath_.at(metric);
  std::vector<double>& per_location = by_location_.at(metric);
  if (first == 0) {
    per_callpath.assign(callpaths_, 0.0);
    per_location.assign(locations_, 0.0);
  }
  for (std::size_t c = 0; c < callpaths_; ++c) {
    for (std::size_t l = 0; l < count; ++l) {
      const double value = values[c * count + l];
      if (std::isnan(value)) continue;  // a rank without trace: absent
      per_callpath[c] += value;
      per_location[first + l] += value;
    }
  }
}

void SummaryDigest::add_subtree(const std::vector<std::vector<double>>& source,
                                const std::vector<std::size_t>& rows, std::vector<double>& sum) {
  for (std::size_t m : rows) {
    if (sum.size() < source[m].size()) sum.resize(source[m].size(), 0.0);
    for (std::size_t i = 0; i < source[m].size(); ++i) sum[i] += source[m][i];
  }
}

double metric_total(const report::CubeHeader& header, const SummaryDigest& digest,
                    std::size_t row) {
  std::vector<double> per_location;
  SummaryDigest::add_subtree(digest.by_location(), subtree(header, row), per_location);
  double total = 0;
  for (double v : per_location) total += v;
  return total;
}

void print_summary(std::ostream& out, const report::Cube& cube,
                   const patterns::PatternRegistry& registry, const ReplayStatistics& statistics,
                   const std::string& report_path, std::size_t top) {
  SummaryDigest digest(cube.header);
  for (std::size_t m = 0; m < cube.values.size(); ++m) digest.add(m, cube.values[m]);
  print_summary(out, cube.header, digest, registry, statistics, report_path, top);
}

void print_summary(std::ostream& out, const report::CubeHeader& header,
                   const SummaryDigest& digest, const patterns::PatternRegistry& registry,
                   const ReplayStatistics& statistics, const std::string& report_path,
                   std::size_t top) {
  const std::size_t n_loc = header.locations.size();
  const double total = metric_total(header, digest, registry.row("time"));
  // Threads (OpenMP) are locations of their rank (docs/design.md §5).
  std::size_t n_ranks = 0;
  for (const report::Location& location : header.locations) n_ranks += location.thread == 0 ? 1 : 0;
  out << "\nTotal time: " << format(6, total) << " s over " << n_ranks << " ranks";
  if (n_ranks != n_loc) out << " (" << n_loc << " threads)";
  out << "\n";

  // Each wait state once, inclusive of its sub-metrics (which are printed
  // under it, "of which ..."), so the listed values add up.
  const auto is_wait_state = [&](int row) {
    return row >= 0 && registry.patterns()[static_cast<std::size_t>(row)]->info().kind ==
                           patterns::MetricKind::kWaitState;
  };
  struct Found { std::size_t row; double value; };
  std::vector<Found> found;
  for (const auto& pattern : registry.patterns()) {
    if (pattern->info().kind != patterns::MetricKind::kWaitState) continue;
    if (is_wait_state(registry.parent_row(pattern->row()))) continue;
    const double value = metric_total(header, digest, pattern->row());
    // Below a microsecond is noise of the clock, not a wait state worth reading.
    if (value >= 1e-6) found.push_back({pattern->row(), value});
  }
  std::sort(found.begin(), found.end(), [](const Found& a, const Found& b) { return a.value > b.value; });
  if (found.empty()) {
    out << "No wait states found.\n";
  } else {
    out << "Top wait states:\n";
  }
  for (std::size_t i = 0; i < std::min(top, found.size()); ++i) {
    const std::size_t row = found[i].row;
    const auto rows = subtree(header, row);
    std::vector<double> by_cp, by_rank;
    SummaryDigest::add_subtree(digest.by_callpath(), rows, by_cp);
    SummaryDigest::add_subtree(digest.by_location(), rows, by_rank);
    if (by_cp.empty() || by_rank.empty()) continue;
    const auto cp = static_cast<std::size_t>(std::max_element(by_cp.begin(), by_cp.end()) - by_cp.begin());
    std::vector<std::size_t> ranks(by_rank.size());
    for (std::size_t l = 0; l < ranks.size(); ++l) ranks[l] = l;
    std::stable_sort(ranks.begin(), ranks.end(),
                     [&](std::size_t a, std::size_t b) { return by_rank[a] > by_rank[b]; });
    std::string affected;
    for (std::size_t k = 0; k < std::min<std::size_t>(3, ranks.size()) && by_rank[ranks[k]] > 0; ++k) {
      if (!affected.empty()) affected += ", ";
      const report::Location& where = header.locations[ranks[k]];
      affected += "rank " + std::to_string(where.rank) +
                  (where.thread != 0 ? " thread " + std::to_string(where.thread) : std::string()) + " (" +
                  format(6, by_rank[ranks[k]]) + " s)";
    }
    out << "  " << header.metrics[row].display_name << ": " << format(6, found[i].value)
        << " s (" << format(1, total > 0 ? 100.0 * found[i].value / total : 0.0)
        << "% of time)\n"
        << "      at " << report::callpath_label(header, cp) << "\n"
        << "      most affected: " << affected << "\n";
    for (std::size_t sub : rows) {
      if (sub == row) continue;
      const double part = metric_total(header, digest, sub);
      if (part < 1e-6) continue;
      // Depth below the listed wait state, for nested sub-metrics.
      std::string indent = "      ";
      for (int p = header.metrics[sub].parent; p >= 0 && static_cast<std::size_t>(p) != row;
           p = header.metrics[static_cast<std::size_t>(p)].parent) {
        indent += "  ";
      }
      out << indent << "of which " << header.metrics[sub].display_name << ": "
          << format(6, part) << " s\n";
    }
  }
  warn_about_flushes(out, header, digest, registry);
  if (statistics.clock_violations > 0) {
    out << "Warning: corrected " << statistics.clock_violations
        << " clock-condition violations (receives that ended before their send began).\n";
  }
  if (statistics.unclosed_regions > 0) {
    out << "Warning: " << statistics.unclosed_regions
        << " regions were still open at the end of a trace (truncated run?); closed there.\n";
  }
  if (statistics.unmatched_requests > 0) {
    out << "Warning: " << statistics.unmatched_requests
        << " request completions had no matching post and were ignored.\n";
  }
  if (statistics.sends_unmatched > 0 || statistics.recvs_unmatched > 0) {
    out << "Warning: " << statistics.sends_unmatched << " sends and "
        << statistics.recvs_unmatched
        << " receives had no partner in the traces (it ended before the other side, or was on a "
           "thread not traced) and were left unmatched.\n";
  }
  if (statistics.collectives_dropped > 0) {
    out << "Warning: " << statistics.collectives_dropped
        << " collective instances were not completed by every member of their communicator "
           "(a trace ended first) and were dropped.\n";
  }
  if (statistics.collectives_interrupted > 0) {
    out << "Warning: " << statistics.collectives_interrupted
        << " collective calls were still in progress when their rank's trace ended (not "
           "analyzed; their time counts, their waiting cannot be known).\n";
  }
  out << "Report: " << report_path << "\n";
}

}  // namespace orrery::analyzer

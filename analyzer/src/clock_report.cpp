#include "orrery/analyzer/clock_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>

#include "orrery/run_json.h"

namespace orrery::analyzer {
namespace {

using nlohmann::json;

/// A duration with a unit that fits it ("850 ns", "12.3 us", "1.234 ms").
std::string duration(double seconds) {
  char text[48];
  const double magnitude = std::fabs(seconds);
  if (magnitude < 1e-6) {
    std::snprintf(text, sizeof text, "%.0f ns", seconds * 1e9);
  } else if (magnitude < 1e-3) {
    std::snprintf(text, sizeof text, "%.1f us", seconds * 1e6);
  } else if (magnitude < 1.0) {
    std::snprintf(text, sizeof text, "%.3f ms", seconds * 1e3);
  } else {
    std::snprintf(text, sizeof text, "%.3f s", seconds);
  }
  return text;
}

json read_clock(const std::string& experiment) {
  const auto run = run_json::read(run_json::file_of(experiment));
  if (!run) return nullptr;
  using namespace run_json::key;
  for (json clock : {run_json::at(*run, {kClock}), run_json::at(*run, {kMeasurement, kClock})}) {
    if (clock.is_object()) return clock;
  }
  return nullptr;
}

}  // namespace

std::string describe_clock(const std::string& experiment) {
  const json clock = read_clock(experiment);
  if (clock.is_null()) return "";
  try {
    const json nodes = clock.value("nodes", json::array());
    const bool tsc = clock.value("source", std::string()) == "tsc";
    std::string text = tsc ? "TSC" : "CLOCK_MONOTONIC";
    if (tsc && !nodes.empty() && nodes[0].is_object()) {
      char rate[32];
      std::snprintf(rate, sizeof rate, " at %.3f GHz", nodes[0].value("tick_rate_hz", 0.0) / 1e9);
      text += rate;
    }
    text += tsc ? ", one TSC→ns conversion per node (" : ", one clock per node (";
    text += std::to_string(nodes.size()) + (nodes.size() == 1 ? " node" : " nodes");
    if (tsc) text += ", conversion ±" + duration(clock.value("max_conversion_uncertainty_ns", 0.0) * 1e-9);
    text += "); offsets to rank 0: ";
    if (nodes.size() <= 1) return text + "none (one node)";
    double largest = 0;
    for (const json& node : nodes) {
      for (const json& offset : node.value("offsets", json::array())) {
        largest = std::max(largest, std::fabs(offset.value("offset_ns", 0.0)));
      }
    }
    return text + "ping-pong of the node leaders, up to " + duration(largest * 1e-9) + " ±" +
           duration(clock.value("max_offset_uncertainty_ns", 0.0) * 1e-9);
  } catch (const json::exception&) {
    return "";
  }
}

report::ClockRecord clock_record(const std::string& description,
                                 const std::vector<ClockCorrection>& per_rank,
                                 double seconds_per_tick) {
  report::ClockRecord record;
  record.clock = description;
  for (std::size_t r = 0; r < per_rank.size(); ++r) {
    const ClockCorrection& c = per_rank[r];
    record.corrections.push_back({static_cast<int32_t>(r), static_cast<double>(c.violations),
                                  static_cast<double>(c.corrected),
                                  static_cast<double>(c.moved) * seconds_per_tick,
                                  static_cast<double>(c.max_shift) * seconds_per_tick});
  }
  return record;
}

void print_clock_summary(std::ostream& out, const report::ClockRecord& record, bool correcting) {
  out << "Clock: " << (record.clock.empty() ? "not described by the experiment (no clock in run.json)"
                                            : record.clock)
      << "\n";
  double violations = 0, corrected = 0, moved = 0, max_shift = 0;
  std::size_t ranks = 0;
  for (const report::ClockCorrectionRow& row : record.corrections) {
    violations += row.violations;
    corrected += row.corrected;
    moved += row.moved;
    max_shift = std::max(max_shift, row.max_shift);
    if (row.corrected > 0) ++ranks;
  }
  if (violations == 0 && corrected == 0) {
    out << "Clock corrections: none (no receive completed before its send began)\n";
    return;
  }
  char line[256];
  if (!correcting) {
    std::snprintf(line, sizeof line,
                  "Clock corrections: off; %.0f receives completed before their send began\n",
                  violations);
  } else {
    std::snprintf(line, sizeof line,
                  "Clock corrections: %.0f receives on %zu rank(s) moved after their send; they "
                  "inserted %s in total, the largest move of an event %s (per rank: report.h5 "
                  "/clock_corrections)\n",
                  corrected, ranks, duration(moved).c_str(), duration(max_shift).c_str());
  }
  out << line;
}

}  // namespace orrery::analyzer

// The what-if machine model: its syntax and the collective cost model (what_if.h).

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <utility>
#include <vector>

#include "orrery/analyzer/what_if.h"
#include "orrery/error.h"

namespace orrery::analyzer {
namespace {

const char* const kSyntax =
    "expected 'ideal' or 'latency=L,bandwidth=B[,compute=F]' (L with a unit: ns, us, ms, s; "
    "B in B/s, KB/s, MB/s, GB/s, TB/s; F a factor on computation), e.g. "
    "latency=5us,bandwidth=1GB/s";

[[noreturn]] void bad_model(const std::string& text, const std::string& what) {
  throw UsageError("--what-if '" + text + "': " + what + "; " + kSyntax);
}

/// The number at the start of `value` and the rest (its unit); fails unless it
/// is a finite non-negative number.
std::pair<double, std::string> number_and_unit(const std::string& text, const std::string& key,
                                               const std::string& value) {
  const char* begin = value.c_str();
  char* end = nullptr;
  const double number = std::strtod(begin, &end);
  if (end == begin || !std::isfinite(number)) {
    bad_model(text, key + " '" + value + "' does not start with a number");
  }
  if (number < 0) bad_model(text, key + " '" + value + "' is negative");
  return {number, std::string(end)};
}

/// A unit factor from `units`; fails naming the allowed ones.
double unit_factor(const std::string& text, const std::string& key, const std::string& value,
                   const std::string& unit, const std::vector<std::pair<std::string, double>>& units) {
  for (const auto& [name, factor] : units) {
    if (unit == name) return factor;
  }
  std::string allowed;
  for (const auto& entry : units) allowed += (allowed.empty() ? "" : ", ") + entry.first;
  bad_model(text, key + " '" + value + "' " +
                      (unit.empty() ? "has no unit" : "has an unknown unit '" + unit + "'") +
                      " (one of " + allowed + ")");
}

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

}  // namespace

MachineModel parse_machine_model(const std::string& text) {
  MachineModel model;
  model.text = text;
  if (text == "ideal") return model;
  if (text.empty()) bad_model(text, "the model is empty");
  bool has_latency = false, has_bandwidth = false, has_compute = false;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    const std::string item = text.substr(start, comma - start);
    start = comma + 1;
    const std::size_t equals = item.find('=');
    if (equals == std::string::npos) bad_model(text, "'" + item + "' is not KEY=VALUE");
    const std::string key = item.substr(0, equals);
    const std::string value = item.substr(equals + 1);
    const auto [number, unit] = number_and_unit(text, key, value);
    bool* seen = nullptr;
    if (key == "latency") {
      model.latency = number * unit_factor(text, key, value, unit,
                                           {{"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1}});
      seen = &has_latency;
    } else if (key == "bandwidth") {
      model.bandwidth = number * unit_factor(text, key, value, unit,
                                             {{"B/s", 1}, {"KB/s", 1e3}, {"MB/s", 1e6},
                                              {"GB/s", 1e9}, {"TB/s", 1e12}});
      if (!(model.bandwidth > 0)) bad_model(text, "bandwidth must be positive");
      seen = &has_bandwidth;
    } else if (key == "compute") {
      if (!unit.empty()) bad_model(text, "compute '" + value + "' is a plain factor, without a unit");
      if (!(number > 0)) bad_model(text, "compute must be positive");
      model.compute = number;
      seen = &has_compute;
    } else {
      bad_model(text, "unknown key '" + key + "' (latency, bandwidth, compute)");
    }
    if (*seen) bad_model(text, "'" + key + "' is given twice");
    *seen = true;
  }
  if (!has_latency || !has_bandwidth) {
    bad_model(text, std::string("'") + (has_latency ? "bandwidth" : "latency") + "' is missing");
  }
  return model;
}

CollectiveCost collective_cost(CollectiveKind kind, const std::string& region, uint32_t group,
                               double buffer) {
  const double p = std::max<double>(1, group);
  const double tree_rounds = std::ceil(std::log2(p));
  const std::string name = lower(region);
  const bool blockwise = kind == CollectiveKind::kNeighbor ||
                         name.find("gather") != std::string::npos ||
                         name.find("scatter") != std::string::npos ||
                         name.find("alltoall") != std::string::npos;
  switch (kind) {
    case CollectiveKind::kBarrier:
      return {tree_rounds, 0};
    case CollectiveKind::kOneToAll:
    case CollectiveKind::kAllToOne:
    case CollectiveKind::kAllToAll:
    case CollectiveKind::kNeighbor:
    case CollectiveKind::kScan:
    case CollectiveKind::kExscan:
      if (blockwise) return {p - 1, (p - 1) * buffer / p};
      return {tree_rounds, tree_rounds * buffer};
    case CollectiveKind::kOther:
    case CollectiveKind::kInit:
    case CollectiveKind::kFinalize:
      break;
  }
  return {};
}

}  // namespace orrery::analyzer

// The POP efficiency formulas (efficiency.h).

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "orrery/report/efficiency.h"
#include "orrery/report/trees.h"

namespace orrery::report {
namespace {

/// Sum over the metric named `name` and its sub-metrics at location `l`; 0 if absent.
double subtree_at(const CubeHeader& header, const std::vector<std::vector<double>>& by_location,
                  const std::string& name, std::size_t l) {
  for (std::size_t m = 0; m < header.metrics.size(); ++m) {
    if (header.metrics[m].name != name) continue;
    double sum = 0;
    for (const std::size_t row : metric_subtree(header, m)) {
      if (row < by_location.size() && l < by_location[row].size()) sum += by_location[row][l];
    }
    return sum;
  }
  return 0;
}

}  // namespace

std::vector<Efficiency> pop_efficiencies(const std::vector<double>& useful, double runtime,
                                         std::optional<double> ideal_runtime) {
  double most = 0, sum = 0;
  std::size_t processes = 0;
  for (const double value : useful) {
    if (std::isnan(value)) continue;
    most = std::max(most, value);
    sum += value;
    ++processes;
  }
  if (processes == 0 || !(most > 0) || !(runtime > 0)) return {};
  const double load_balance = sum / static_cast<double>(processes) / most;
  const double communication = most / runtime;
  std::vector<Efficiency> rows{
      {"parallel_efficiency", load_balance * communication,
       "load_balance x communication_efficiency: the share of the run's process time spent in "
       "useful computation"},
      {"load_balance", load_balance,
       "mean useful computation over processes / its maximum (useful computation = time outside "
       "MPI, the measurement and the OpenMP runtime)"},
      {"communication_efficiency", communication,
       "maximum useful computation / run time (= serialisation_efficiency x "
       "transfer_efficiency)"}};
  if (ideal_runtime && *ideal_runtime > 0) {
    rows.push_back({"serialisation_efficiency", most / *ideal_runtime,
                    "maximum useful computation / run time on an ideal network (zero latency, "
                    "infinite bandwidth): loss to dependencies between processes"});
    rows.push_back({"transfer_efficiency", *ideal_runtime / runtime,
                    "run time on an ideal network / run time: loss to moving data"});
  }
  return rows;
}

std::vector<double> useful_computation(const CubeHeader& header,
                                       const std::vector<std::vector<double>>& by_location) {
  std::vector<double> useful;
  for (std::size_t l = 0; l < header.locations.size(); ++l) {
    if (header.locations[l].thread != 0) continue;
    useful.push_back(subtree_at(header, by_location, "time", l) -
                     subtree_at(header, by_location, "mpi", l) -
                     subtree_at(header, by_location, "overhead", l) -
                     subtree_at(header, by_location, "omp", l));
  }
  return useful;
}

std::optional<double> find_efficiency(const std::vector<Efficiency>& rows, const std::string& name) {
  for (const Efficiency& row : rows) {
    if (row.name == name) return row.value;
  }
  return std::nullopt;
}

std::string efficiency_text(const std::vector<Efficiency>& rows) {
  std::string text;
  for (const Efficiency& row : rows) {
    char line[128];
    std::snprintf(line, sizeof line, "  %-26s %6.3f\n", row.name.c_str(), row.value);
    text += line;
  }
  return text;
}

}  // namespace orrery::report

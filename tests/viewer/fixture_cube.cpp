#include "fixture_cube.h"

#include <algorithm>
#include <random>
#include <set>
#include <utility>
#include <string>

#include "orrery/error.h"

namespace orrery::viewer::testing {
namespace {

report::Metric metric(const char* name, const char* display, int32_t parent, const char* unit,
                      const char* description, const char* diagnosis) {
  return {name, display, parent, unit, description, diagnosis};
}

std::vector<report::Metric> fixture_metrics() {
  return {
      metric("time", "Time", -1, "sec", "Total time of all call paths.",
             "Start here: expand to see where the time goes."),
      metric("execution", "Execution", 0, "sec", "Time not spent in measurement overhead.",
             "Compare with Time to see the measurement's own cost."),
      metric("mpi", "MPI", 1, "sec", "Time inside MPI calls.",
             "A large share means communication or waiting dominates."),
      metric("late_sender", "Late Sender", 2, "sec",
             "Receiver blocked because the matching send started later.",
             "Balance the work before the send, or post receives later."),
      metric("wait_at_barrier", "Wait at Barrier", 2, "sec",
             "Time in a barrier before the last process entered it.",
             "Load imbalance before the barrier: balance the work or remove the barrier."),
      metric("overhead", "Overhead", 0, "sec", "Measurement's own work inside the run.",
             "Filter frequently called small functions."),
      metric("visits", "Visits", -1, "occ", "Number of times a call path was entered.",
             "Many visits of a small region inflate overhead."),
      metric("bytes_sent", "Bytes sent", -1, "bytes", "Point-to-point bytes sent.",
             "Aggregate small messages."),
  };
}

const char* const kRegionNames[] = {
    "main",      "MPI_Init",  "solve",         "MPI_Finalize",  "MPI_Send",     "MPI_Recv",
    "MPI_Barrier", "MPI_Allreduce", "MPI_Wait", "compute",     "exchange_halo", "smooth",
    "residual",  "update_ghosts", "write_output", "pack_buffers", "unpack_buffers", "interpolate",
    "restrict_grid", "prolongate", "apply_stencil", "norm"};
constexpr std::size_t kFirstChildRegion = 4;  // regions below solve: MPI calls and kernels
constexpr std::size_t kRegionCount = sizeof(kRegionNames) / sizeof(kRegionNames[0]);

// Gives `parent` up to 8 children with distinct regions (a call path is
// identified by its chain of region names) and shares `budget` further call
// paths among the children that are not MPI calls.
void add_subtree(report::CubeHeader& h, std::mt19937& random, int32_t parent, std::size_t budget) {
  if (budget == 0) return;
  std::vector<std::size_t> pool;
  for (std::size_t r = kFirstChildRegion; r < kRegionCount; ++r) pool.push_back(r);
  std::shuffle(pool.begin(), pool.end(), random);
  const std::size_t fanout = std::min<std::size_t>(budget, 2 + random() % 7);
  if (budget > fanout) {  // at least one kernel child carries the rest of the budget
    const auto kernel = std::find_if(pool.begin(), pool.end(),
                                     [&](std::size_t r) { return h.regions[r].paradigm != "mpi"; });
    std::iter_swap(pool.begin(), kernel);
  }
  std::size_t kernels = 0;
  for (std::size_t i = 0; i < fanout; ++i) kernels += h.regions[pool[i]].paradigm != "mpi" ? 1 : 0;
  std::size_t remaining = budget - fanout;
  for (std::size_t i = 0; i < fanout; ++i) {
    h.callpaths.push_back({parent, static_cast<int32_t>(pool[i])});
    if (h.regions[pool[i]].paradigm == "mpi") continue;
    const std::size_t share = kernels == 1 ? remaining : remaining / kernels;
    --kernels;
    remaining -= share;
    add_subtree(h, random, static_cast<int32_t>(h.callpaths.size() - 1), share);
  }
}

}  // namespace

report::Cube make_fixture_cube(const FixtureSpec& spec) {
  report::Cube cube;
  auto& h = cube.header;
  h.attributes = {"orrery viewer fixture", "fixture-seed-" + std::to_string(spec.seed),
                  "2026-11-21T00:00:00Z"};
  h.metrics = fixture_metrics();
  for (const char* name : kRegionNames) {
    const std::string n = name;
    h.regions.push_back({n, n.rfind("MPI_", 0) == 0 ? "" : "app.c",
                         n.rfind("MPI_", 0) == 0 ? 0 : 10, n.rfind("MPI_", 0) == 0 ? "mpi" : "compiler"});
  }
  // A fixed top (main > MPI_Init, solve, ..., MPI_Finalize), then a random
  // tree under solve, built depth-first so that rows are in pre-order.
  h.callpaths.push_back({-1, 0});
  h.callpaths.push_back({0, 1});
  h.callpaths.push_back({0, 2});
  std::mt19937 random(spec.seed);
  const std::size_t budget = spec.callpaths > 4 ? spec.callpaths - 4 : 0;
  add_subtree(h, random, 2, budget);
  h.callpaths.push_back({0, 3});
  for (std::size_t l = 0; l < spec.locations; ++l) {
    h.locations.push_back({static_cast<int32_t>(l), 0, "node" + std::to_string(l / 4),
                           "rank " + std::to_string(l)});
  }
  const std::size_t n_cp = h.callpaths.size();
  const std::size_t n_loc = spec.locations;
  cube.values.assign(h.metrics.size(), report::MetricValues(n_cp * n_loc, 0.0));
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (std::size_t c = 0; c < n_cp; ++c) {
    const auto& region = h.regions[static_cast<std::size_t>(h.callpaths[c].region)];
    const bool mpi = region.paradigm == "mpi";
    for (std::size_t l = 0; l < n_loc; ++l) {
      // Higher ranks compute more, so lower ranks wait: a visible imbalance.
      const double imbalance = 1.0 + static_cast<double>(l) / static_cast<double>(n_loc);
      const std::size_t at = c * n_loc + l;
      cube.values[6][at] = static_cast<double>(1 + random() % 50);
      if (mpi) {
        cube.values[2][at] = spec.scale * 0.01 * unit(random);
        if (region.name == "MPI_Recv") cube.values[3][at] = spec.scale * 0.1 * unit(random) / imbalance;
        if (region.name == "MPI_Barrier") cube.values[4][at] = spec.scale * 0.2 * unit(random) / imbalance;
        if (region.name == "MPI_Send") cube.values[7][at] = 1024.0 * static_cast<double>(1 + random() % 64);
      } else {
        cube.values[1][at] = spec.scale * 0.05 * imbalance * unit(random);
      }
      cube.values[5][at] = 0.0005 * unit(random);
    }
  }
  return cube;
}

void drop_metric(report::Cube& cube, const std::string& name) {
  auto& metrics = cube.header.metrics;
  const auto it = std::find_if(metrics.begin(), metrics.end(),
                               [&](const report::Metric& m) { return m.name == name; });
  if (it == metrics.end()) throw UsageError("no metric '" + name + "' in the fixture");
  const auto row = static_cast<int32_t>(it - metrics.begin());
  const int32_t parent = it->parent;
  for (auto& m : metrics) {
    if (m.parent == row) m.parent = parent;
    else if (m.parent > row) --m.parent;
  }
  metrics.erase(it);
  cube.values.erase(cube.values.begin() + row);
}

}  // namespace orrery::viewer::testing

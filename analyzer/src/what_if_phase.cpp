// The network-model steps of the analysis pipeline (what_if_phase.h).

#include "orrery/analyzer/what_if_phase.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include "orrery/report/trees.h"

namespace orrery::analyzer {

void run_network_models(const AnalysisOptions& options, const ReplayInputs& in, bool partial,
                        const PhaseRunner& phases,
                        const std::function<void(const std::string&)>& progress,
                        AnalysisResult& result) {
  phases.run([&] {
    if (options.what_if && partial) {
      throw InputError("--what-if needs a complete run: this one ended before MPI_Finalize, lost "
                       "ranks or made MPI calls on threads that were not traced, whose communication "
                       "cannot be replayed on a model");
    }
  });
  if (partial || (!options.ideal_replay && !options.what_if)) return;
  phases.run([&] { check_collective_counts(in.trace, in.definitions, in.comms, in.world); });
  if (options.ideal_replay) {
    progress("ideal-network replay (for the POP efficiencies)");
    // Every message eager: no send waits for its receive, so a program that
    // relies on MPI buffering large messages cannot stall this replay.
    MachineModel ideal;
    ideal.eager_limit = UINT64_MAX;
    if (options.what_if) ideal.compute = options.what_if->compute;
    phases.run_or_abort("the ideal-network replay", [&] {
      result.ideal = replay_what_if(in, ideal, false);
    });
    if (result.ideal->without_waits) {
      progress("ideal-network replay: nothing waits, one walk and one bulk exchange");
    } else if (result.ideal->without_waits_tried) {
      progress("ideal-network replay: something waits, replayed event by event");
    }
  }
  if (options.what_if) {
    progress("what-if replay on " + options.what_if->text);
    phases.run_or_abort("the what-if replay", [&] {
      result.predicted = replay_what_if(in, *options.what_if, true);
    });
  }
}

std::vector<report::Efficiency> run_efficiencies(
    const report::CubeHeader& header, const std::vector<std::vector<double>>& by_location,
    const AnalysisResult& result) {
  double runtime = 0;
  if (result.predicted) {
    runtime = result.predicted->predicted_runtime;
  } else if (result.ideal) {
    runtime = result.ideal->measured_runtime;
  } else {
    // No replay: the longest process (its whole time).
    std::size_t time_row = 0;
    while (time_row < header.metrics.size() && header.metrics[time_row].name != "time") ++time_row;
    if (time_row < header.metrics.size()) {
      for (std::size_t l = 0; l < header.locations.size(); ++l) {
        double total = 0;
        for (const std::size_t m : report::metric_subtree(header, time_row)) {
          if (m < by_location.size() && l < by_location[m].size()) total += by_location[m][l];
        }
        runtime = std::max(runtime, total);
      }
    }
  }
  std::optional<double> ideal_runtime;
  if (result.ideal) ideal_runtime = result.ideal->predicted_runtime;
  return report::pop_efficiencies(report::useful_computation(header, by_location), runtime,
                                  ideal_runtime);
}

std::optional<report::Prediction> prediction_of(const AnalysisOptions& options,
                                                const AnalysisResult& result) {
  if (!options.what_if || !result.predicted) return std::nullopt;
  return report::Prediction{options.what_if->text, result.predicted->predicted_runtime};
}

void print_efficiencies(std::ostream& out, const AnalysisOptions& options,
                        const AnalysisResult& result) {
  if (options.what_if && result.predicted) {
    char line[256];
    const double measured = result.predicted->measured_runtime;
    const double predicted = result.predicted->predicted_runtime;
    std::snprintf(line, sizeof line,
                  "What if %s: predicted run time %.6f s (measured %.6f s, %+.1f %%)\n",
                  options.what_if->text.c_str(), predicted, measured,
                  measured > 0 ? 100.0 * (predicted - measured) / measured : 0.0);
    out << "\n" << line;
  }
  if (result.efficiencies.empty()) return;
  out << "\nEfficiencies (POP" << (options.what_if ? ", of the predicted run" : "") << "):\n"
      << report::efficiency_text(result.efficiencies);
}

}  // namespace orrery::analyzer

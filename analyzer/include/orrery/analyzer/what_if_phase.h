#pragma once
// The analysis pipeline's network-model steps (analysis.cpp): the
// ideal-network replay behind the POP efficiencies, the what-if re-timing
// (what_if.h) and what they add to the report and the summary.

#include <mpi.h>

#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "orrery/analyzer/analysis.h"
#include "orrery/analyzer/phases.h"
#include "orrery/report/efficiency.h"

namespace orrery::analyzer {

/// Collective: the ideal-network replay (options.ideal_replay) and, if asked,
/// the what-if re-timing of `in.trace`, after the clock correction and
/// before the pattern replays. `partial`: an incomplete run or one with ranks
/// missing, which neither replay can model (a what-if is then an input error).
void run_network_models(const AnalysisOptions& options, const ReplayInputs& in, bool partial,
                        const PhaseRunner& phases,
                        const std::function<void(const std::string&)>& progress,
                        AnalysisResult& result);

/// Rank 0: the POP efficiencies of the (predicted) run from the merged
/// cube's per-location sums (`by_location[metric row][location]`).
[[nodiscard]] std::vector<report::Efficiency> run_efficiencies(
    const report::CubeHeader& header, const std::vector<std::vector<double>>& by_location,
    const AnalysisResult& result);

/// The report's `what_if` attributes of a what-if analysis; nullopt otherwise.
[[nodiscard]] std::optional<report::Prediction> prediction_of(const AnalysisOptions& options,
                                                              const AnalysisResult& result);

/// The summary's efficiency lines and, for a what-if, predicted vs measured run time.
void print_efficiencies(std::ostream& out, const AnalysisOptions& options,
                        const AnalysisResult& result);

}  // namespace orrery::analyzer

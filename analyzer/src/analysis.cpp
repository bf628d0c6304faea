// The analysis pipeline: analyze() runs the steps of AnalysisRun
// (analysis_run.h) in order; this file keeps the texts they share.

#include "orrery/analyzer/analysis.h"

#include <algorithm>
#include <filesystem>

#include "analysis_run.h"

namespace orrery::analyzer {

namespace fs = std::filesystem;

std::string describe_endings(const std::vector<std::string>& endings) {
  // Reasons in order of their first rank; at most 8 ranks listed per reason.
  std::vector<std::pair<std::string, std::vector<std::size_t>>> groups;
  for (std::size_t r = 0; r < endings.size(); ++r) {
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const auto& group) { return group.first == endings[r]; });
    if (it == groups.end()) it = groups.insert(groups.end(), {endings[r], {}});
    it->second.push_back(r);
  }
  std::string text = "Incomplete run (no MPI_Finalize), analyzed up to each rank's end: ";
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const auto& [reason, ranks] = groups[g];
    text += (g == 0 ? "" : "; ") + reason + (ranks.size() == 1 ? ": rank " : ": ranks ");
    for (std::size_t k = 0; k < ranks.size() && k < 8; ++k) {
      text += (k == 0 ? "" : ", ") + std::to_string(ranks[k]);
    }
    if (ranks.size() > 8) text += " and " + std::to_string(ranks.size() - 8) + " more";
  }
  return text + ".";
}

std::string describe_lost_ranks(const std::vector<uint32_t>& lost) {
  std::string ranks;
  for (std::size_t k = 0; k < lost.size() && k < 8; ++k) {
    ranks += (k == 0 ? "" : ", ") + std::to_string(lost[k]);
  }
  if (lost.size() > 8) ranks += " and " + std::to_string(lost.size() - 8) + " more";
  return std::string("Warning: rank") + (lost.size() == 1 ? " " : "s ") + ranks +
         " left no trace: analyzed without " + (lost.size() == 1 ? "it" : "them") +
         " (messages to and from " + (lost.size() == 1 ? "it" : "them") +
         " are unmatched, the collectives of their communicators dropped); " +
         (lost.size() == 1 ? "its" : "their") + " values in the report are absent (NaN).";
}

std::string default_report_path(const std::string& experiment) {
  fs::path dir(experiment);
  if (experiment.ends_with(".otf2")) dir = dir.parent_path();
  return (dir / "report.h5").string();
}

AnalysisResult analyze(const AnalysisOptions& options, MPI_Comm world) {
  return AnalysisRun(options, world).run();
}

}  // namespace orrery::analyzer

// The analysis pipeline: analyze() runs the steps of AnalysisRun
// (analysis_run.h) in order; this file keeps the texts they share.

#include "orrery/analyzer/analysis.h"

#include <malloc.h>

#include <algorithm>
#include <climits>
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

namespace {

/// The phases allocate and free tables of every event, message and wait
/// state one after the other. By default glibc maps blocks above a moving
/// threshold afresh and gives the heap's top back to the system, so every
/// phase faulted its pages in again (page faults and page clearing were about
/// a tenth of the analysis). Blocks up to 32 MiB (glibc's largest threshold)
/// now come from the heap, and freed memory stays for the next phase: the
/// peak is the same, the process keeps it until it exits. Measured with
/// analyzer_bench (10 M events, 2 ranks): the causes on 8.7-9.6 -> 10.3-11.0 M
/// events/s per rank.
void keep_freed_memory_for_the_next_phase() {
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, INT_MAX);
}

}  // namespace

AnalysisResult analyze(const AnalysisOptions& options, MPI_Comm world) {
  keep_freed_memory_for_the_next_phase();
  return AnalysisRun(options, world).run();
}

}  // namespace orrery::analyzer

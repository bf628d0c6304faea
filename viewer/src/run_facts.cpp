#include "run_facts.h"

#include <filesystem>
#include <initializer_list>
#include <vector>

#include "orrery/run_json.h"

namespace orrery::viewer {
namespace fs = std::filesystem;
using run_json::at;

std::optional<nlohmann::json> read_run_record(const std::string& report_path, const std::string& experiment,
                                              std::string& why_none) {
  std::vector<fs::path> candidates{fs::absolute(fs::path(report_path)).parent_path() / run_json::kFileName};
  if (!experiment.empty()) candidates.push_back(run_json::file_of(experiment));
  for (const auto& file : candidates) {
    std::error_code error;
    if (!fs::is_regular_file(file, error)) continue;
    return run_json::read(file, &why_none);
  }
  why_none = "no run.json next to the report (it was not made by orrery run here)";
  return std::nullopt;
}

nlohmann::json run_facts(const ReportData& report, const nlohmann::json& record, const std::string& why_no_record) {
  const auto& h = report.header();
  nlohmann::json facts = {{"label", report.label()},
                          {"processes", h.locations.size()},
                          {"callpaths", h.callpaths.size()},
                          {"metrics", h.metrics.size()},
                          {"creator", h.attributes.creator},
                          {"created", h.attributes.created},
                          {"experiment", h.attributes.experiment}};
  if (record.is_null()) {
    facts["run_record"] = nullptr;
    facts["why_no_run_record"] = why_no_record;
    return facts;
  }
  facts["run_record"] = true;
  using namespace run_json::key;
  facts["command"] = at(record, {kCommandLine});
  facts["ranks"] = at(record, {kRanks});
  facts["hosts"] = at(record, {kHosts});
  facts["start"] = at(record, {kStart});
  facts["duration"] = at(record, {kDurationS});
  facts["exit_status"] = at(record, {kExitStatus});
  facts["mode"] = at(record, {kSettings, kMode});
  for (const char* key : {"events", "bytes", "flushes", "lost_events"}) {
    facts[key] = at(record, {kMeasurement, kStatistics, kTotal, key});
  }
  // Written by analyzers that record them (optional; absent means not recorded).
  facts["clock_corrections"] = at(record, {kAnalysis, "clock_violations"});
  return facts;
}

}  // namespace orrery::viewer

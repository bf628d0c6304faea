#include "run_facts.h"

#include <filesystem>
#include <initializer_list>
#include <vector>

#include "orrery/bounded_read.h"

namespace orrery::viewer {
namespace {

namespace fs = std::filesystem;

/// record[a][b]... if every step exists, else null.
nlohmann::json at(const nlohmann::json& record, std::initializer_list<const char*> keys) {
  const nlohmann::json* node = &record;
  for (const char* key : keys) {
    if (!node->is_object() || !node->contains(key)) return nullptr;
    node = &(*node)[key];
  }
  return *node;
}

}  // namespace

std::optional<nlohmann::json> read_run_record(const std::string& report_path, const std::string& experiment,
                                              std::string& why_none) {
  std::vector<fs::path> candidates{fs::absolute(fs::path(report_path)).parent_path() / "run.json"};
  if (!experiment.empty()) candidates.push_back(fs::path(experiment) / "run.json");
  for (const auto& file : candidates) {
    std::error_code error;
    if (!fs::is_regular_file(file, error)) continue;
    const auto text = read_bounded_text(file);
    const nlohmann::json record =
        text ? nlohmann::json::parse(*text, nullptr, false)
             : nlohmann::json(nlohmann::json::value_t::discarded);
    if (record.is_discarded() || !record.is_object()) {
      why_none = file.string() + " is not valid JSON";
      return std::nullopt;
    }
    return record;
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
  facts["command"] = at(record, {"command_line"});
  facts["ranks"] = at(record, {"ranks"});
  facts["hosts"] = at(record, {"hosts"});
  facts["start"] = at(record, {"start"});
  facts["duration"] = at(record, {"duration_s"});
  facts["exit_status"] = at(record, {"exit_status"});
  facts["mode"] = at(record, {"settings", "mode"});
  for (const char* key : {"events", "bytes", "flushes", "lost_events"}) {
    facts[key] = at(record, {"measurement", "statistics", "total", key});
  }
  // Written by analyzers that record them (optional; absent means not recorded).
  facts["clock_corrections"] = at(record, {"analysis", "clock_violations"});
  return facts;
}

}  // namespace orrery::viewer

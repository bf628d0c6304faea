#pragma once
// The facts of a run for the findings page: what the report says (processes,
// call paths, creator, date) and, when the experiment's run.json is at hand,
// what `orrery run` recorded (command line, ranks, hosts, duration, events,
// bytes and flushes of the measurement).

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "report_data.h"

namespace orrery::viewer {

/// run.json of the report's experiment (the report's directory, else the
/// experiment named in the report), or nullopt and why not in `why_none`.
std::optional<nlohmann::json> read_run_record(const std::string& report_path, const std::string& experiment,
                                              std::string& why_none);

/// The facts shown for one run; `record` may be null (no run.json).
nlohmann::json run_facts(const ReportData& report, const nlohmann::json& record, const std::string& why_no_record);

}  // namespace orrery::viewer

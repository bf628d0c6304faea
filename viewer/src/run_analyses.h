#pragma once
// The optional analyses of a report that the viewer shows beside its metrics
// (docs/design.md §5): the POP efficiencies (`/efficiency`), a what-if
// report's model and predicted run time, and the function groups of the
// load-imbalance analysis (`/groups`). They are read once at start by
// orrery::report's readers (view_command.cpp) and kept here as plain data, so
// the API is tested with in-memory values.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "orrery/report/efficiency.h"
#include "orrery/report/groups.h"

namespace orrery::viewer {

/// What one report holds beyond its metrics; each part may be absent.
struct RunAnalyses {
  std::vector<report::Efficiency> efficiencies;       ///< empty: no `/efficiency`
  std::optional<report::Prediction> prediction;       ///< a what-if report's
  std::optional<report::FunctionGroups> groups;       ///< nullopt: no `/groups`
  std::string why_no_groups = "the report has no function groups (/groups)";
  std::string why_no_efficiency;  ///< set when `/efficiency` or the what-if attributes are broken
};

/// The efficiency facts of a run: `efficiency` (list of {name, value,
/// description}, or null), `what_if` and `predicted_runtime` (null on an
/// ordinary report); `efficiency_error` when they could not be read.
[[nodiscard]] nlohmann::json efficiency_facts(const RunAnalyses& analyses);

/// The function groups: per group its row, name, parent, similarity, total,
/// mean, max, max_location (row) and imbalance; with `selected`, that group's
/// value per location too. `{available: false, reason}` without groups.
/// Throws UsageError if `selected` is not a group row.
[[nodiscard]] nlohmann::json function_groups_json(const RunAnalyses& analyses,
                                                  std::optional<std::size_t> selected);

/// Reads them from `report_path` (which has `locations` locations). Broken
/// optional tables do not stop the viewer: the part is absent and
/// `why_no_groups` / `why_no_efficiency` say why. Defined in the `orrery view` library (it reads HDF5).
[[nodiscard]] RunAnalyses read_run_analyses(const std::string& report_path, std::size_t locations);

}  // namespace orrery::viewer

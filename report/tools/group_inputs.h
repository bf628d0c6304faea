#pragma once
// The reports of groups of repeated runs, opened for run_groups.h: each
// run counted once, and (unless allowed) all of one program. Shared by
// `orrery compare --baseline/--candidate` and `orrery view --baseline/--candidate`.

#include <memory>
#include <string>
#include <vector>

#include "orrery/report/hdf5_io.h"
#include "orrery/report/run_groups.h"
#include "tool_support.h"

namespace orrery::report::tools {

/// Opens every report of a group; throws UsageError for a path already in
/// `seen` (the same run twice would fake a small spread) and adds the paths to it.
[[nodiscard]] std::vector<std::unique_ptr<CubeReader>> open_group(const std::vector<std::string>& paths,
                                                                  std::vector<std::string>& seen);

/// The runs of a group, pointing into `readers` (which must outlive them).
[[nodiscard]] std::vector<GroupRun> group_runs(const std::vector<std::string>& paths,
                                               const std::vector<std::unique_ptr<CubeReader>>& readers);

/// Throws InputError when the runs' run.json name different programs (runs
/// without a record are not checked).
void check_same_program(const std::vector<GroupRun>& runs);

/// Adds an option taking a percentage ("2%", "2" or "0.5%") stored as a fraction.
void add_percent_option(CLI::App& app, const std::string& name, double& target, const std::string& help);

}  // namespace orrery::report::tools

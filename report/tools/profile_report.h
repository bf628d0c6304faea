#pragma once
// `orrery run -m profile` writes EXP/profile/rank-<r>.json (docs/measure.md);
// this turns them into EXP/report.h5, a cube of the same schema as the
// analyzer's (docs/design.md §5) with the metrics a profile can know: time (split into
// execution, mpi and overhead by region paradigm), visits, message and
// collective counts and bytes. No wait states: those need a trace.

#include <string>

namespace orrery::report::tools {

/// Writes `experiment_dir`/report.h5 from its per-rank profiles and returns the
/// report's path; InputError if there are none or one cannot be read.
std::string write_profile_report(const std::string& experiment_dir);

}  // namespace orrery::report::tools

// What `orrery run` says last. A profile is turned into EXP/report.h5 here,
// so `orrery stat` and `orrery view` open it at once (report/tools/profile_report.h).

#include "next_step.h"

#include <cstdio>
#include <exception>

#include "profile_report.h"

namespace orrery::measure {

bool finish_experiment(const std::string& mode, const std::string& dir, const std::string& ranks,
                       bool complete) {
  const char* incomplete = complete ? "" : " (incomplete)";
  if (mode != "profile") {
    std::fprintf(stderr, "orrery run: experiment %s%s; analyze it with: mpirun -np %s orrery-analyze %s\n",
                 dir.c_str(), incomplete, ranks.c_str(), dir.c_str());
    return true;
  }
  try {
    const std::string report = report::tools::write_profile_report(dir);
    std::fprintf(stderr,
                 "orrery run: profile %s%s written to %s; look at it with: orrery stat %s (or orrery "
                 "view %s); estimate a trace with: orrery score %s, then measure wait states with: "
                 "orrery run --mode trace\n",
                 dir.c_str(), incomplete, report.c_str(), report.c_str(), report.c_str(), dir.c_str());
    return true;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "orrery run: the profile in %s/profile could not be turned into a report: %s\n",
                 dir.c_str(), error.what());
    return false;
  }
}

}  // namespace orrery::measure

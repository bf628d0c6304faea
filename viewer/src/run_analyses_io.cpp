// Reading a report's optional analyses through orrery::report (run_analyses.h).

#include "orrery/error.h"
#include "run_analyses.h"

namespace orrery::viewer {

RunAnalyses read_run_analyses(const std::string& report_path, std::size_t locations) {
  RunAnalyses analyses;
  try {
    analyses.efficiencies = report::read_efficiencies(report_path);
    analyses.prediction = report::read_prediction(report_path);
  } catch (const InputError& e) {
    analyses.why_no_efficiency = e.what();
  }
  try {
    analyses.groups = report::read_function_groups(report_path, locations);
  } catch (const InputError& e) {
    analyses.why_no_groups = e.what();
  }
  return analyses;
}

}  // namespace orrery::viewer

#pragma once
// The launcher's closing lines after a measured run: for a trace, how to
// analyze it; for a profile, the report it wrote and what to do next.

#include <string>

namespace orrery::measure {

/// Finishes the experiment for `mode` and tells the user what to do next.
/// Returns false if a profile's report could not be written (the message is printed).
bool finish_experiment(const std::string& mode, const std::string& dir, const std::string& ranks,
                       bool complete);

}  // namespace orrery::measure

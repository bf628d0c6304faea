#pragma once
// A last line of defence for the cube tools: the HDF5 library can crash
// (SIGSEGV, or abort on heap corruption) on reports whose metadata is
// damaged, which no API call can check beforehand. The tools then end as for
// any bad input: one line naming the report(s), exit status 1, no core dump.

#include <string>

namespace orrery::report::tools {

/// Installs the handler for fatal signals; `command` is "orrery stat" etc.
void install_crash_guard(const std::string& command);

/// Records a report the command is about to read, for the handler's message.
void note_report(const std::string& path);

/// The reports noted so far, comma-separated ("" if none).
std::string noted_reports();

}  // namespace orrery::report::tools

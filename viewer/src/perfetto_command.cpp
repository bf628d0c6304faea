// The command line of the Perfetto export; `orrery export` hands argv here
// when --format is perfetto (cli/export_dispatch.cpp), since the other
// formats read a report and this one reads the trace.

#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <limits>

#include "orrery/viewer/commands.h"
#include "orrery/trace/timeline.h"
#include "orrery/error.h"
#include "perfetto_export.h"

namespace orrery::viewer {

int perfetto_export_command(int argc, char** argv) {
  CLI::App app{"Exports an experiment's trace (or the window --from..--to, seconds from the "
               "trace's start) as Chrome trace-event JSON for ui.perfetto.dev and "
               "chrome://tracing: one process per rank, one track per thread, regions and MPI "
               "calls as complete events, messages as flow events.",
               "orrery export"};
  std::string experiment;
  std::string format;
  std::string output;
  double from = 0;
  double to = std::numeric_limits<double>::infinity();
  app.add_option("experiment", experiment, "experiment directory with traces.otf2")->required();
  app.add_option("--format", format, "perfetto")->check(CLI::IsMember({"perfetto"}))->required();
  app.add_option("-o,--output", output, "write to this file instead of standard output");
  app.add_option("--from", from, "start of the window, seconds from the trace's start")->check(CLI::NonNegativeNumber);
  app.add_option("--to", to, "end of the window, seconds from the trace's start")->check(CLI::NonNegativeNumber);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    if (error.get_exit_code() == 0) return app.exit(error);
    std::fprintf(stderr, "orrery export: %s (see 'orrery export --help')\n", error.what());
    return kExitBadUsage;
  }
  if (to < from) {
    std::fprintf(stderr, "orrery export: --to %g is before --from %g\n", to, from);
    return kExitBadUsage;
  }
  try {
    if (!analyzer::timeline::has_trace(experiment)) {
      throw InputError(experiment + ": no OTF2 trace (traces.otf2); a profile has no events to export");
    }
    TimelineSource source(experiment);
    std::ofstream file;
    if (!output.empty()) {
      file.open(output, std::ios::trunc);
      if (!file) throw InputError(output + ": cannot be written");
    }
    std::ostream& out = output.empty() ? std::cout : file;
    const PerfettoCounts counts = write_perfetto(source, from, to, out);
    out.flush();
    if (!out) throw InputError((output.empty() ? "standard output" : output) + ": write failed");
    if (!output.empty()) {
      std::fprintf(stderr, "orrery export: %s: %llu slices, %llu messages\n", output.c_str(),
                   static_cast<unsigned long long>(counts.slices),
                   static_cast<unsigned long long>(counts.flows));
    }
    return kExitOk;
  } catch (const Error& error) {
    std::fprintf(stderr, "orrery export: %s\n", error.what());
    return error.exit_status();
  } catch (const std::exception& error) {
    std::fprintf(stderr, "orrery export: %s\n", error.what());
    return kExitBadInput;
  }
}

}  // namespace orrery::viewer

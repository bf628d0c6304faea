// `orrery`: one front end whose main only dispatches to the subcommands.

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "subcommands.h"

namespace {

struct Subcommand {
  const char* name;
  const char* summary;
  int (*main)(int argc, char** argv);
};

const std::vector<Subcommand>& subcommands() {
  static const std::vector<Subcommand> table = {
#ifdef ORRERY_HAVE_LAUNCHER
      {"run", "run an MPI program with measurement: orrery run [-o EXP] -- mpirun ...",
       orrery::measure::run_command},
#endif
#ifdef ORRERY_HAVE_VIEWER
      {"view", "browse a report (and compare with another) in the web browser",
       orrery::viewer::view_command},
#endif
#ifdef ORRERY_HAVE_REPORT_TOOLS
      {"info", "what a report holds", orrery::report::tools::info_command},
      {"stat", "hot call paths and processes for a metric", orrery::report::tools::stat_command},
      {"tree", "the call tree with values and percentages", orrery::report::tools::tree_command},
      {"diff", "difference of two reports: orrery diff A B -o OUT",
       orrery::report::tools::diff_command},
      {"merge", "merge reports into one: orrery merge A B ... -o OUT",
       orrery::report::tools::merge_command},
      {"mean", "mean of several runs: orrery mean A B ... -o OUT",
       orrery::report::tools::mean_command},
      {"cut", "re-root or prune a report's call tree", orrery::report::tools::cut_command},
      {"compare", "per metric and call path, the change across runs",
       orrery::report::tools::compare_command},
      {"export", "export a report (CSV, JSON, XML, CUBE4) or a trace (Perfetto)",
       orrery::cli::export_dispatch},
      {"score", "estimated trace size per region and rank, buffer and a filter to shrink it",
       orrery::report::tools::score_command},
      {"runs", "the runs' metadata side by side (command, ranks, params, ...)",
       orrery::report::tools::runs_command},
      {"findings", "the top findings: wait states, their root causes, gain and advice",
       orrery::report::tools::findings_command},
      {"scaling", "per call path, a model of time over the runs' sizes and a prediction",
       orrery::report::tools::scaling_command},
#endif
  };
  return table;
}

void print_usage(std::FILE* out) {
  std::fprintf(out, "Usage: orrery <command> [options]\n\nCommands:\n");
  for (const auto& command : subcommands()) {
    std::fprintf(out, "  %-8s %s\n", command.name, command.summary);
  }
  std::fprintf(out, "\nAnalysis: mpirun -np N orrery-analyze EXP\n"
                    "Run 'orrery <command> --help' for the options of a command.\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    print_usage(stderr);
    return 2;
  }
  const std::string name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    print_usage(stdout);
    return 0;
  }
  if (name == "--version") {
    std::printf("orrery " ORRERY_VERSION "\n");
    return 0;
  }
  for (const auto& command : subcommands()) {
    if (name == command.name) {
      std::string program = std::string("orrery ") + command.name;
      std::vector<char*> args(argv + 1, argv + argc);
      args[0] = program.data();
      args.push_back(nullptr);
      return command.main(argc - 1, args.data());
    }
  }
  std::fprintf(stderr, "orrery: unknown command '%s'\n\n", name.c_str());
  print_usage(stderr);
  return 2;
}

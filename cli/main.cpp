// `orrery`: one front end whose main only dispatches to the subcommands.

#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "export_dispatch.h"
#ifdef ORRERY_HAVE_LAUNCHER
#include "orrery/launcher/commands.h"
#endif
#ifdef ORRERY_HAVE_VIEWER
#include "orrery/viewer/commands.h"
#endif
#ifdef ORRERY_HAVE_REPORT_TOOLS
#include "orrery/report/tools/commands.h"
#endif

namespace {

using orrery::Subcommands;

/// The parts' lists, in the order `orrery --help` shows them.
const Subcommands& subcommands() {
  static const Subcommands table = [] {
    Subcommands all;
    const auto append = [&all](const Subcommands& part) { all.insert(all.end(), part.begin(), part.end()); };
#ifdef ORRERY_HAVE_LAUNCHER
    append(orrery::measure::launcher_subcommands());
#endif
#ifdef ORRERY_HAVE_VIEWER
    append(orrery::viewer::viewer_subcommands());
#endif
#ifdef ORRERY_HAVE_REPORT_TOOLS
    append(orrery::report::tools::report_subcommands());
    for (auto& command : all) {
      if (std::string_view(command.name) == "export") {
        command.main = orrery::cli::export_dispatch;  // reports and traces (export_dispatch.h)
      }
    }
#endif
    return all;
  }();
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

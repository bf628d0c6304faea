// `orrery imbalance REPORT [--format table|json]`: the two-level function
// groups of the load-imbalance analysis (orrery/report/groups.h): per group
// its time over the processes (mean, maximum and where), its imbalance and
// its load similarity to its parent group.

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "orrery/error.h"
#include "orrery/report/group_load.h"
#include "orrery/report/groups.h"
#include "orrery/report/tools/commands.h"
#include "tool_support.h"

namespace orrery::report::tools {

int imbalance_command(int argc, char** argv) {
  CLI::App app{
      "The function groups of a report's load-imbalance analysis: computation, MPI "
      "point-to-point, MPI collective, I/O and other, each split by source file (or as the "
      "grouping file of orrery-analyze --groups said), with their time per process, imbalance "
      "((max - mean) / max) and load similarity to the parent group (0-1: 1 = the same "
      "imbalance pattern, 0 = the opposite).",
      "orrery imbalance"};
  std::string path;
  OutputFormat format = OutputFormat::kTable;
  app.add_option("report", path, "report file (report.h5)")->required();
  add_format_option(app, format, {"table", "json"});
  return run_tool(app, argc, argv, [&] {
    const CubeReader reader = open_report(path);
    const CubeHeader& header = reader.header();
    const auto groups = read_function_groups(path, header.locations.size());
    if (!groups) {
      throw InputError(path + ": no function groups (/groups): the report was written by another "
                              "producer or an older orrery-analyze; analyze the experiment again");
    }
    const auto where = [&](std::size_t l) {
      return l < header.locations.size() ? header.locations[l].name : std::to_string(l);
    };
    if (format == OutputFormat::kJson) {
      nlohmann::json list = nlohmann::json::array();
      for (std::size_t g = 0; g < groups->groups.size(); ++g) {
        const FunctionGroup& group = groups->groups[g];
        const GroupLoad load = group_load(*groups, g);
        list.push_back({{"name", group.name},
                        {"parent", group.parent},
                        {"similarity", group.similarity},
                        {"total", load.total},
                        {"mean", load.mean},
                        {"max", load.max},
                        {"max_location", where(load.max_location)},
                        {"imbalance", load.imbalance}});
      }
      std::cout << nlohmann::json{{"report", path}, {"groups", std::move(list)}}.dump(2) << "\n";
      return;
    }
    std::printf("%-40s %12s %12s %12s %-14s %9s %10s\n", "group", "total (s)", "mean (s)",
                "max (s)", "max at", "imbalance", "similarity");
    for (std::size_t g = 0; g < groups->groups.size(); ++g) {
      const FunctionGroup& group = groups->groups[g];
      const GroupLoad load = group_load(*groups, g);
      std::string name = (group.parent < 0 ? "" : "  ") + group.name;
      if (name.size() > 40) name = name.substr(0, 37) + "...";
      std::printf("%-40s %12.6f %12.6f %12.6f %-14s %8.1f%% %10.3f\n", name.c_str(), load.total,
                  load.mean, load.max, where(load.max_location).c_str(), 100 * load.imbalance,
                  group.similarity);
    }
    std::printf("\nSimilarity: top groups against the whole run, second-level groups against "
                "their top group.\n");
  });
}

}  // namespace orrery::report::tools

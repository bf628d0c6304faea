// `orrery diff | merge | mean | cut`: cube algebra from the command line.
// Each streams one metric at a time, so inputs never need to fit in memory
// whole, and writes a report of the same format (docs/design.md §5).

#include <iostream>

#include "orrery/error.h"
#include "orrery/report/algebra.h"
#include "orrery/report/tools/commands.h"
#include "tool_support.h"

namespace orrery::report::tools {
namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& name : names) {
    out += (out.empty() ? "" : ", ") + name;
  }
  return out;
}

std::string counted(std::size_t count, const std::string& noun) {
  return std::to_string(count) + " " + noun + (count == 1 ? "" : "s");
}

void announce(const std::string& output, const CubeHeader& header) {
  std::cout << "wrote " << output << ": " << counted(header.metrics.size(), "metric") << ", "
            << counted(header.callpaths.size(), "call path") << ", "
            << counted(header.locations.size(), "location") << "\n";
}

void write_combination(const std::string& command, const std::vector<std::string>& inputs,
                       const std::string& output, Combination how) {
  std::vector<CubeReader> readers;
  std::vector<const CubeHeader*> headers;
  readers.reserve(inputs.size());
  for (const auto& input : inputs) {
    readers.push_back(open_report(input));
  }
  for (const auto& reader : readers) {
    headers.push_back(&reader.header());
  }
  CubeUnion united = unite(headers);
  united.header.attributes = {"orrery " + command, command + "(" + joined(inputs) + ")", ""};
  const MetricLoader load = [&](std::size_t input, std::size_t row) {
    return readers[input].read_metric(row);
  };
  write_report_atomically(output, inputs, [&](const std::string& temporary) {
    CubeWriter writer(temporary, united.header);
    for (std::size_t m = 0; m < united.header.metrics.size(); ++m) {
      writer.write_metric(m, combine_metric(united, m, how, load));
    }
    writer.close();
  });
  announce(output, united.header);
}

struct CombineOptions {
  std::vector<std::string> inputs;
  std::string output;
};

int combine_command(int argc, char** argv, const std::string& command,
                    const std::string& description, Combination how) {
  CLI::App app{description, "orrery " + command};
  CombineOptions options;
  auto* inputs = app.add_option("reports", options.inputs, "input reports")->required();
  if (how == Combination::kDifference) {
    inputs->expected(2);
  } else {
    inputs->expected(1, 1 << 20);
  }
  app.add_option("-o,--output", options.output, "the report to write")->required();
  return run_tool(app, argc, argv,
                  [&] { write_combination(command, options.inputs, options.output, how); });
}

struct CutOptions {
  std::string input;
  std::string output;
  std::string root;
  std::string prune;
};

void run_cut(const CutOptions& options) {
  if (options.root.empty() && options.prune.empty()) {
    throw UsageError("give --root or --prune (or both)");
  }
  const CubeReader reader = open_report(options.input);
  std::vector<CallpathCut> cuts;
  cuts.reserve(2);  // `current` points into it
  const CubeHeader* current = &reader.header();
  if (!options.root.empty()) {
    cuts.push_back(plan_reroot(*current, CallpathMatcher(options.root)));
    current = &cuts.back().header;
  }
  if (!options.prune.empty()) {
    cuts.push_back(plan_prune(*current, CallpathMatcher(options.prune)));
  }
  CubeHeader header = cuts.back().header;
  header.attributes.creator = "orrery cut";
  header.attributes.experiment = "cut(" + options.input + ")";
  header.attributes.created.clear();
  write_report_atomically(options.output, {options.input}, [&](const std::string& temporary) {
    CubeWriter writer(temporary, header);
    for (std::size_t m = 0; m < header.metrics.size(); ++m) {
      MetricValues values = reader.read_metric(m);
      std::size_t callpaths = reader.header().callpaths.size();
      for (const CallpathCut& cut : cuts) {
        values = apply_cut(cut, callpaths, values);
        callpaths = cut.header.callpaths.size();
      }
      writer.write_metric(m, values);
    }
    writer.close();
  });
  announce(options.output, header);
}

}  // namespace

int diff_command(int argc, char** argv) {
  return combine_command(argc, argv, "diff",
                         "The difference A - B of two reports, call paths matched by their "
                         "region-name path; what only one report has counts as zero in the other.",
                         Combination::kDifference);
}

int merge_command(int argc, char** argv) {
  return combine_command(argc, argv, "merge",
                         "Unites the metrics of several reports into one (e.g. a time run and a "
                         "counter run); a metric present in several reports comes from the first.",
                         Combination::kMerge);
}

int mean_command(int argc, char** argv) {
  return combine_command(argc, argv, "mean",
                         "The element-wise mean of several runs; a call path, metric or process "
                         "missing from a run counts as zero in it.",
                         Combination::kMean);
}

int cut_command(int argc, char** argv) {
  CLI::App app{"Re-roots a report's call tree at matched call paths (--root) and/or prunes the "
               "subtrees below matched call paths, folding their values into them (--prune).\n"
               "A pattern is a region name, a path like main/solve, or a regular expression.",
               "orrery cut"};
  CutOptions options;
  app.add_option("report", options.input, "input report")->required();
  app.add_option("-o,--output", options.output, "the report to write")->required();
  app.add_option("-r,--root", options.root, "keep only the subtrees of call paths matching this");
  app.add_option("-p,--prune", options.prune,
                 "remove what lies below call paths matching this, keeping the totals");
  return run_tool(app, argc, argv, [&] { run_cut(options); });
}

}  // namespace orrery::report::tools

// The cube tools' entries in `orrery --help` (orrery/report/tools/commands.h).

#include "orrery/report/tools/commands.h"

namespace orrery::report::tools {

Subcommands report_subcommands() {
  return {
      {"info", "what a report holds", info_command},
      {"stat", "hot call paths and processes for a metric", stat_command},
      {"tree", "the call tree with values and percentages", tree_command},
      {"diff", "difference of two reports: orrery diff A B -o OUT", diff_command},
      {"merge", "merge reports into one: orrery merge A B ... -o OUT", merge_command},
      {"mean", "mean of several runs: orrery mean A B ... -o OUT", mean_command},
      {"cut", "re-root or prune a report's call tree", cut_command},
      {"compare", "per metric and call path, the change across runs", compare_command},
      {"export", "export a report (CSV, JSON, XML, CUBE4) or a trace (Perfetto)", export_command},
      {"score", "estimated trace size per region and rank, buffer and a filter to shrink it",
       score_command},
      {"runs", "the runs' metadata side by side (command, ranks, params, ...)", runs_command},
      {"findings", "the top findings: wait states, their root causes, gain and advice",
       findings_command},
      {"imbalance", "the load-imbalance analysis: function groups, their imbalance and similarity",
       imbalance_command},
      {"scaling", "per call path, a model of time over the runs' sizes and a prediction",
       scaling_command},
  };
}

}  // namespace orrery::report::tools

#pragma once
// The cube tools' subcommands (`orrery info`, `stat`, ...).

#include "orrery/subcommand.h"

namespace orrery::report::tools {

int info_command(int argc, char** argv);
int stat_command(int argc, char** argv);
int tree_command(int argc, char** argv);
int diff_command(int argc, char** argv);
int merge_command(int argc, char** argv);
int mean_command(int argc, char** argv);
int cut_command(int argc, char** argv);
int compare_command(int argc, char** argv);
int export_command(int argc, char** argv);
int score_command(int argc, char** argv);
int runs_command(int argc, char** argv);
int findings_command(int argc, char** argv);
int imbalance_command(int argc, char** argv);
int scaling_command(int argc, char** argv);

/// Every cube tool, in the order `orrery --help` lists them.
Subcommands report_subcommands();

}  // namespace orrery::report::tools

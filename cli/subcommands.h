#pragma once
// The subcommands of the `orrery` front end. Each lives with its part
// (DESIGN §6): `run` in measure/launcher, `view` in viewer/, the cube tools
// in report/tools. Each takes argv with argv[0] = "orrery <name>" and returns
// the exit status (0 ok, 1 bad input, 2 bad usage).

namespace orrery::measure {
int run_command(int argc, char** argv);
}
namespace orrery::viewer {
int view_command(int argc, char** argv);
/// `orrery export EXP --format perfetto`: the trace as Chrome trace-event JSON.
int perfetto_export_command(int argc, char** argv);
}
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
int scaling_command(int argc, char** argv);
}  // namespace orrery::report::tools
namespace orrery::cli {
/// `orrery export`: the trace formats (perfetto) go to the viewer's trace
/// reading, every other format to the report tools.
int export_dispatch(int argc, char** argv);
}  // namespace orrery::cli

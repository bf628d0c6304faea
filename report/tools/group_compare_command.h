#pragma once
// `orrery compare --baseline A1 A2 ... [--candidate B1 B2 ...]`: groups of
// repeated runs compared with confidence (run_groups.h), or the noise of one
// group. `orrery compare` hands over to it when it sees --baseline or --candidate.

namespace orrery::report::tools {

/// True if the arguments ask for the group comparison rather than `compare A B [C...]`.
[[nodiscard]] bool wants_group_compare(int argc, char** argv);

/// The group comparison's main (argv[0] = "orrery compare").
int group_compare_command(int argc, char** argv);

}  // namespace orrery::report::tools

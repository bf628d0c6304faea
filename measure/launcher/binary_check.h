#pragma once
// Explaining a run that produced no trace by looking at the program's file.

#include <string>

namespace orrery::measure {

/// Likely reason why LD_PRELOAD measurement could not see MPI in `program`
/// (as written on the launch line): statically linked, not linked with MPI,
/// not found. Empty when the file gives no hint.
std::string explain_untraceable_program(const std::string& program);

}  // namespace orrery::measure

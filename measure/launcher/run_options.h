#pragma once
// The options of `orrery run` and their mapping onto the ORRERY_* variables
// that liborrery-measure.so reads (the launcher/library contract).

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace orrery::measure {

/// What `orrery run` was asked to do, after parsing and validation.
struct RunOptions {
  std::string experiment_dir;  ///< empty: derive orrery_<program>_<N> from the launch line
  std::string mode = "trace";  ///< trace | profile
  std::string buffer_size;     ///< as given (e.g. "64M"); empty: library default
  std::string filter_file;     ///< absolute path or empty
  std::string sampling_interval_ms;  ///< empty: library default; "0" = off
  bool trace_queries = false;
  bool verbose = false;
  bool no_openmp = false;  ///< --no-openmp: OpenMP threads are not measured (ORRERY_OPENMP=0)
  std::vector<std::pair<std::string, std::string>> params;  ///< --param KEY=VALUE, in order
  std::vector<std::string> recorded_variables;  ///< --env NAME: recorded in run.json
  std::vector<std::string> launch;  ///< everything after `--`
};

/// Result of parsing: either options to run with, or an exit status to
/// return at once (after --help, or after a usage error already printed).
struct ParsedRunOptions {
  std::optional<RunOptions> options;
  int exit_status = 0;
};

/// Parses `orrery run` arguments (argv[0] = "orrery run"). Prints help and
/// usage errors itself; throws InputError for a missing filter file.
ParsedRunOptions parse_run_options(int argc, char** argv);

/// Parses a size with an optional K/M/G suffix (powers of 1024); nullopt if
/// it is not one.
std::optional<std::uint64_t> parse_byte_size(const std::string& text);

/// The ORRERY_* variables (name, value) the options give, in a fixed order.
std::vector<std::pair<std::string, std::string>> measurement_environment(
    const RunOptions& options, const std::string& experiment_dir);

}  // namespace orrery::measure

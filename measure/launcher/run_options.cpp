// Parsing of `orrery run` options with CLI11. Every option mirrors one
// ORRERY_* variable; an option not given falls back to that variable.

#include "run_options.h"

// GCC 12 reports a false -Wnull-dereference inside CLI11's string splitting
// when inlined at -O2; the warning is about library code, not ours.
#pragma GCC diagnostic ignored "-Wnull-dereference"
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string_view>

#include "orrery/error.h"

namespace orrery::measure {
namespace {

constexpr const char* kFooter = R"(
The launch command follows '--', e.g.
  orrery run -o EXP -- mpirun -np 4 ./app
Every option mirrors an ORRERY_* environment variable (shown as Env:) that is
used when the option is not given. The launcher also sets ORRERY_LAUNCHER=1,
appends liborrery-measure.so to LD_PRELOAD (found in <prefix>/lib next to this
program's bin/, override with ORRERY_MEASURE_LIBRARY), preloads LLVM's libomp
before it for a program built with GCC's -fopenmp (override with
ORRERY_LIBOMP; --no-openmp turns OpenMP measurement off), and for OpenMPI's
mpirun/mpiexec inserts '-x VAR' for each variable so remote ranks get them.

Writes EXP/run.json (command, times, hosts, exit status, complete, the
measurement's statistics) and, from the library, the OTF2 archive
EXP/traces.otf2. Refuses an existing EXP. Exit status: the application's; 1
for bad input or a run that produced no trace; 2 for bad usage.)";

std::string check_byte_size(const std::string& text) {
  return parse_byte_size(text) ? std::string{}
                               : "'" + text + "' is not a size (bytes, optionally with K, M or G)";
}

std::string check_milliseconds(const std::string& text) {
  const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
  if (!digits) return "'" + text + "' is not a whole number of milliseconds";
  // The library accepts at most a day (ORRERY_SAMPLING_INTERVAL, settings.cpp).
  const std::size_t first = text.find_first_not_of('0');
  const std::string significant = first == std::string::npos ? "0" : text.substr(first);
  if (significant.size() > 8 || std::stoll(significant) > 86400000) {
    return "'" + text + "' is more than a day (86400000 ms)";
  }
  return {};
}

std::string check_param(const std::string& text) {
  const auto equals = text.find('=');
  if (equals == std::string::npos || equals == 0) return "'" + text + "' is not KEY=VALUE";
  const std::string key = text.substr(0, equals);
  if (key.find_first_of(" \t\n") != std::string::npos) return "the key '" + key + "' has a space";
  return {};
}

std::string check_variable_name(const std::string& name) {
  const bool valid = !name.empty() && name.find_first_of("= \t\n") == std::string::npos;
  return valid ? std::string{} : "'" + name + "' is not an environment variable name";
}

/// Index of the first "--" in argv, or argc when there is none.
int find_separator(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--") return i;
  }
  return argc;
}

int usage_error(const std::string& message) {
  std::fprintf(stderr, "orrery run: %s\nRun 'orrery run --help' for the options.\n",
               message.c_str());
  return kExitBadUsage;
}

void configure(CLI::App& app, RunOptions& options, std::vector<std::string>& stray,
               std::vector<std::string>& params) {
  app.description("Run an MPI program with measurement: orrery run [options] -- LAUNCH...");
  app.footer(kFooter);
  app.allow_extras(true);
  // argv is split at "--" before parsing, so this only catches a launch
  // command written without "--"; it also names LAUNCH in the usage line.
  app.add_option("LAUNCH", stray, "the launch line, after '--' (e.g. mpirun -np 4 ./app)");
  app.add_option("-o,--experiment", options.experiment_dir,
                 "experiment directory to create (default orrery_<program>_<ranks>); "
                 "must not exist")
      ->envname("ORRERY_EXPERIMENT_DIR");
  app.add_option("-m,--mode", options.mode, "trace: event traces (default); profile: summary only")
      ->check(CLI::IsMember({"trace", "profile"}))
      ->envname("ORRERY_MODE");
  app.add_option("-b,--buffer", options.buffer_size,
                 "per-rank event buffer size in bytes, K/M/G suffix allowed; a full buffer "
                 "is flushed to disk and the flush recorded")
      ->check(CLI::Validator(check_byte_size, "SIZE"))
      ->envname("ORRERY_BUFFER_SIZE");
  app.add_option("-f,--filter", options.filter_file,
                 "filter file: glob patterns including/excluding compiler and user regions")
      ->envname("ORRERY_FILTER");
  app.add_option("--sampling-interval", options.sampling_interval_ms,
                 "resource sampling interval in milliseconds (0 = off)")
      ->check(CLI::Validator(check_milliseconds, "MS"))
      ->envname("ORRERY_SAMPLING_INTERVAL");
  app.add_flag("--trace-queries", options.trace_queries,
               "also trace local query/glue calls and unsuccessful tests/probes as events "
               "(default: counted only)")
      ->envname("ORRERY_TRACE_QUERIES");
  app.add_flag("-v,--verbose", options.verbose,
               "the measurement prints a line at init and finalize (rank 0)")
      ->envname("ORRERY_VERBOSE");
  app.add_flag("--no-openmp", options.no_openmp,
               "do not measure OpenMP threads (no OMPT tool, no libomp preload): MPI only");
  app.add_option("--param", params,
                 "a parameter of this run, KEY=VALUE (repeatable), recorded in run.json for "
                 "'orrery runs' and for choosing groups for 'orrery compare'")
      ->check(CLI::Validator(check_param, "KEY=VALUE"))
      ->allow_extra_args(false);
  app.add_option("--env", options.recorded_variables,
                 "record the value of this environment variable in run.json (repeatable)")
      ->check(CLI::Validator(check_variable_name, "NAME"))
      ->allow_extra_args(false);
}

}  // namespace

std::optional<std::uint64_t> parse_byte_size(const std::string& text) {
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0 || digits > 15) return std::nullopt;
  std::uint64_t value = std::stoull(text.substr(0, digits));
  const std::string suffix = text.substr(digits);
  if (suffix.empty() || suffix == "B" || suffix == "b") return value;
  if (suffix.size() > 2 || (suffix.size() == 2 && (suffix[1] != 'B' && suffix[1] != 'b'))) {
    return std::nullopt;
  }
  switch (std::toupper(static_cast<unsigned char>(suffix[0]))) {
    case 'K': return value << 10;
    case 'M': return value << 20;
    case 'G': return value << 30;
    default: return std::nullopt;
  }
}

ParsedRunOptions parse_run_options(int argc, char** argv) {
  const int separator = find_separator(argc, argv);
  RunOptions options;
  std::vector<std::string> stray;
  std::vector<std::string> params;
  CLI::App app{"orrery run", "orrery run"};
  configure(app, options, stray, params);
  try {
    app.parse(separator, argv);
  } catch (const CLI::CallForHelp& e) {
    return {std::nullopt, app.exit(e)};
  } catch (const CLI::ParseError& e) {
    return {std::nullopt, usage_error(e.what())};
  }
  // A word that is not an option means a launch line without "--"; say
  // that rather than complaining about the launcher's options that follow it.
  std::string unknown_option;
  for (const std::string& extra : app.remaining()) {
    if (!extra.empty() && extra[0] == '-') {
      if (unknown_option.empty()) unknown_option = extra;
    } else {
      stray.push_back(extra);
    }
  }
  const auto position = [&](const std::string& word) {
    return std::find(argv + 1, argv + separator, word) - argv;
  };
  if (!stray.empty() && (unknown_option.empty() || position(stray.front()) < position(unknown_option))) {
    return {std::nullopt,
            usage_error("unexpected argument '" + stray.front() +
                        "': the launch command must follow '--', e.g. "
                        "orrery run -o EXP -- mpirun -np 4 ./app")};
  }
  if (!unknown_option.empty()) {
    return {std::nullopt, usage_error("unknown option '" + unknown_option + "'")};
  }
  for (const std::string& param : params) {
    const auto equals = param.find('=');
    std::string key = param.substr(0, equals);
    for (const auto& [seen, value] : options.params) {
      if (seen == key) return {std::nullopt, usage_error("--param " + key + " is given twice")};
    }
    options.params.emplace_back(std::move(key), param.substr(equals + 1));
  }
  for (int i = separator + 1; i < argc; ++i) options.launch.emplace_back(argv[i]);
  if (options.launch.empty()) {
    return {std::nullopt,
            usage_error("no launch command: give it after '--', e.g. "
                        "orrery run -o EXP -- mpirun -np 4 ./app")};
  }
  if (!options.filter_file.empty()) {
    std::ifstream probe(options.filter_file);
    if (!probe) {
      throw InputError("cannot read filter file '" + options.filter_file + "'");
    }
    options.filter_file = std::filesystem::absolute(options.filter_file).string();
  }
  return {std::move(options), kExitOk};
}

std::vector<std::pair<std::string, std::string>> measurement_environment(
    const RunOptions& options, const std::string& experiment_dir) {
  std::vector<std::pair<std::string, std::string>> variables = {
      {"ORRERY_EXPERIMENT_DIR", experiment_dir},
      {"ORRERY_LAUNCHER", "1"},
      {"ORRERY_MODE", options.mode},
  };
  if (!options.buffer_size.empty()) variables.emplace_back("ORRERY_BUFFER_SIZE", options.buffer_size);
  if (!options.filter_file.empty()) variables.emplace_back("ORRERY_FILTER", options.filter_file);
  if (!options.sampling_interval_ms.empty()) {
    variables.emplace_back("ORRERY_SAMPLING_INTERVAL", options.sampling_interval_ms);
  }
  variables.emplace_back("ORRERY_TRACE_QUERIES", options.trace_queries ? "1" : "0");
  variables.emplace_back("ORRERY_VERBOSE", options.verbose ? "1" : "0");
  if (options.no_openmp) variables.emplace_back("ORRERY_OPENMP", "0");
  return variables;
}

}  // namespace orrery::measure

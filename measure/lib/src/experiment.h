#pragma once
// The experiment directory and the JSON files the library writes into it
// (contract with `orrery run`: /tmp/env_contract.md, docs/measure.md).

#include <nlohmann/json.hpp>

#include "orrery/run_json.h"
#include <string>

#include "recorder.h"

namespace orrery::measure {

/// Rank 0's decision at MPI_Init: the experiment directory to use, or "" when
/// this run must not be measured (`message` then says why, one line).
std::string prepare_experiment(const Settings& settings, std::string& message);

/// Writes `value` to `path` atomically (temp file + rename). False on failure.
bool write_json(const std::string& path, const nlohmann::json& value) noexcept;

/// ISO 8601 UTC time of a CLOCK_REALTIME nanosecond timestamp.
std::string iso_time(uint64_t realtime_ns);

/// The process's command line (from /proc/self/cmdline).
nlohmann::json command_line();

/// Writes EXP/aborted.json (and, without the launcher, an incomplete run.json).
/// EXP/run.json of a run without the launcher (which otherwise writes it):
/// the command line (run_json::key::kCommand) and `fields`.
bool write_library_run_record(const std::string& experiment_dir, nlohmann::json fields) noexcept;

void write_abort_marker(const Settings& settings, int rank, int error_code) noexcept;

}  // namespace orrery::measure

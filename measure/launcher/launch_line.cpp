// The launch line is analyzed only to name the experiment, to forward the
// measurement's variables and to explain a run without trace; the line itself
// is executed unchanged apart from the inserted `-x` options.

#include "launch_line.h"

#include <unistd.h>

#include <array>
#include <cstdlib>
#include <filesystem>
#include <string_view>

namespace orrery::measure {
namespace {

namespace fs = std::filesystem;

std::string basename_of(const std::string& path) { return fs::path(path).filename().string(); }

bool is_mpi_launcher_name(const std::string& name) {
  constexpr std::array<std::string_view, 9> kNames = {
      "mpirun", "mpiexec", "orterun", "prterun", "srun", "mpiexec.hydra",
      "mpirun.openmpi", "mpiexec.openmpi", "mpiexec.mpich"};
  for (auto known : kNames) {
    if (name == known) return true;
  }
  return false;
}

/// OpenMPI's mpirun is orterun (4.x) or prterun (5.x) under another name.
bool resolves_to_openmpi(const std::string& command) {
  const std::string name = basename_of(command);
  if (name == "orterun" || name == "prterun" || name.find("openmpi") != std::string::npos) {
    return true;
  }
  const std::string path = find_in_path(command);
  if (path.empty()) return false;
  std::error_code error;
  const std::string target = basename_of(fs::canonical(path, error).string());
  return !error && (target == "orterun" || target == "prterun" ||
                    target.find("openmpi") != std::string::npos);
}

/// Number of values an mpirun/srun option consumes (options written as
/// --name=value consume none).
int option_values(std::string_view option) {
  constexpr std::array<std::string_view, 2> kTwo = {"-mca", "-gmca"};
  constexpr std::array<std::string_view, 30> kOne = {
      "-np", "-n", "-c", "-N", "-H", "-host", "-x", "-hostfile", "-machinefile", "-wdir",
      "-wd", "-path", "-prefix", "-map-by", "-rank-by", "-bind-to", "-npernode",
      "-npersocket", "-output-filename", "-tune", "-am", "-preload-files", "-timeout",
      "-app", "-ntasks", "-nodes", "-p", "-partition", "-t", "-time"};
  if (option.starts_with("--")) option.remove_prefix(1);  // --np and -np alike
  for (auto name : kTwo) {
    if (option == name) return 2;
  }
  for (auto name : kOne) {
    if (option == name) return 1;
  }
  return 0;
}

std::optional<int> parse_count(const std::string& text) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos ||
      text.size() > 9) {
    return std::nullopt;
  }
  return std::stoi(text);
}

}  // namespace

std::string find_in_path(const std::string& command) {
  if (command.empty()) return {};
  if (command.find('/') != std::string::npos) {
    return access(command.c_str(), X_OK) == 0 ? command : std::string{};
  }
  const char* path = std::getenv("PATH");
  std::string_view rest = path ? path : "/usr/bin:/bin";
  while (true) {
    const auto colon = rest.find(':');
    // Built by construction and append: GCC 12 at -O3 warns (-Wrestrict, a
    // known false positive) on assigning a literal and on concatenation here.
    const std::string_view entry = rest.substr(0, colon);
    const std::string dir = entry.empty() ? std::string(1, '.') : std::string(entry);
    std::string candidate;
    candidate.reserve(dir.size() + 1 + command.size());
    candidate.append(dir).append(1, '/').append(command);
    if (access(candidate.c_str(), X_OK) == 0 && !fs::is_directory(candidate)) return candidate;
    if (colon == std::string_view::npos) return {};
    rest.remove_prefix(colon + 1);
  }
}

LaunchLine analyze_launch_line(const std::vector<std::string>& launch) {
  LaunchLine line;
  if (launch.empty()) return line;
  line.mpi_launcher = is_mpi_launcher_name(basename_of(launch[0]));
  if (!line.mpi_launcher) {
    line.program = launch[0];
    line.ranks = 1;
    return line;
  }
  line.openmpi = resolves_to_openmpi(launch[0]);
  for (std::size_t i = 1; i < launch.size(); ++i) {
    const std::string& word = launch[i];
    if (word.empty() || word[0] != '-') {
      line.program = word;
      break;
    }
    const auto equals = word.find('=');
    const std::string option = word.substr(0, equals);
    const bool rank_option = option == "-np" || option == "--np" || option == "-n" ||
                             option == "--n" || option == "-c" || option == "--ntasks";
    if (equals != std::string::npos) {
      if (rank_option) line.ranks = parse_count(word.substr(equals + 1));
      continue;
    }
    const int values = option_values(option);
    if (rank_option && i + 1 < launch.size()) line.ranks = parse_count(launch[i + 1]);
    i += static_cast<std::size_t>(values);
  }
  return line;
}

std::string default_experiment_name(const LaunchLine& line) {
  std::string program = basename_of(line.program);
  if (program.empty()) program = "app";
  const std::string ranks = line.ranks ? std::to_string(*line.ranks) : "x";
  return "orrery_" + program + "_" + ranks;
}

std::vector<std::string> with_forwarded_variables(const std::vector<std::string>& launch,
                                                  const LaunchLine& line,
                                                  const std::vector<std::string>& names) {
  if (!line.openmpi || launch.empty()) return launch;
  std::vector<std::string> result{launch[0]};
  for (const auto& name : names) {
    result.emplace_back("-x");
    result.push_back(name);
  }
  result.insert(result.end(), launch.begin() + 1, launch.end());
  return result;
}

}  // namespace orrery::measure

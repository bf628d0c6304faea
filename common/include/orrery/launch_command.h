#pragma once
// Which program a recorded launch line ran. Shared by the analyzer (it names
// the call tree's root after the program) and the report tools (`orrery
// runs`, and `orrery compare` refusing to group runs of different programs).

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace orrery {

namespace launch_detail {

inline std::string basename(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

inline bool is_launcher(const std::string& word) {
  const std::string name = basename(word);
  return name == "mpirun" || name == "mpiexec" || name == "orterun" || name == "srun" ||
         name == "mpiexec.hydra" || name == "prun";
}

/// Launcher options that take one argument (OpenMPI, MPICH, Slurm spellings).
/// `--mca`/`-mca`/`--gmca` take two.
inline int option_arguments(std::string_view option) {
  if (option.find('=') != std::string_view::npos) return 0;
  static constexpr std::array<std::string_view, 4> kTwo = {"--mca", "-mca", "--gmca", "-gmca"};
  for (auto two : kTwo) {
    if (option == two) return 2;
  }
  static constexpr std::array<std::string_view, 38> kOne = {
      "-np", "-n", "--np", "-c", "--n", "-N", "--host", "-host", "-H", "-x", "--map-by",
      "-map-by", "--bind-to", "-bind-to", "--rank-by", "-rank-by", "--hostfile", "-hostfile",
      "--machinefile", "-machinefile", "-f", "--npernode", "-npernode", "--npersocket",
      "--wdir", "-wdir", "--prefix", "-prefix", "--preload-files", "--output-filename",
      "--tag-output-filename", "-ppn", "--ntasks", "--cpus-per-task", "-genv", "-env",
      "--path", "--report-bindings-file"};
  for (auto one : kOne) {
    if (option == one) return option == "-genv" || option == "-env" ? 2 : 1;
  }
  return 0;
}

}  // namespace launch_detail

/// The program name from a command line as run.json records it (launcher
/// options skipped): "mpirun -np 4 ./a.out x" gives "a.out"; "" if none.
[[nodiscard]] inline std::string program_from_command(const std::vector<std::string>& command) {
  using namespace launch_detail;
  if (command.empty()) return "";
  if (!is_launcher(command.front())) return basename(command.front());
  for (std::size_t i = 1; i < command.size(); ++i) {
    const std::string& word = command[i];
    if (word.empty()) continue;
    if (word.front() == '-') {
      i += static_cast<std::size_t>(option_arguments(word));
      continue;
    }
    return basename(word);
  }
  return "";
}

}  // namespace orrery

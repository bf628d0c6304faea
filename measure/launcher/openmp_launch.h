#pragma once
// OpenMP programs under `orrery run`: which OpenMP runtime the program is
// linked with (its ELF DT_NEEDED entries), and whether LLVM's libomp must be
// preloaded for the measurement library's OMPT tool to see its threads.
// libomp implements OMPT and also serves GCC's GOMP_* entry points, so a
// program built with gcc -fopenmp (libgomp, no OMPT) runs on it when it is
// preloaded; a program built with clang -fopenmp uses libomp already.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace orrery::measure {

/// What the launcher does about OpenMP for one run.
struct OpenMpPlan {
  std::string program_runtime;  ///< "libgomp", "libomp", "libiomp5" or "" (no OpenMP found)
  std::string preload;          ///< the libomp to put in LD_PRELOAD before the library ("" none)
  bool measured = false;        ///< OpenMP threads are expected to be measured (OMPT)
  bool disabled = false;        ///< --no-openmp
  std::string note;             ///< one line for the user ("" if none)

  /// run.json's "openmp" (null for a program without OpenMP).
  [[nodiscard]] nlohmann::json record() const;
};

/// The shared libraries an ELF file names as DT_NEEDED (empty if it is not a
/// dynamically linked ELF file or cannot be read).
std::vector<std::string> needed_libraries(const std::string& path);

/// The path of LLVM's OpenMP runtime (ORRERY_LIBOMP, else the one found at
/// build time, else the usual Debian places); "" if there is none.
std::string find_libomp();

/// The plan for `program` (as written on the launch line; searched in PATH).
OpenMpPlan plan_openmp(const std::string& program, bool disabled);

}  // namespace orrery::measure

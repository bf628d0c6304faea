// orrery-instrument: a compiler wrapper. It adds the compiler-instrumentation
// flags and, when the command links, the measurement library with an rpath,
// then execs the compiler so that its exit status is the wrapper's.

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "orrery/error.h"

namespace {

namespace fs = std::filesystem;

constexpr const char* kUsage =
    "Usage: orrery-instrument CC [compiler arguments...]\n"
    "Compiles with -finstrument-functions -g (functions from /usr/include are not\n"
    "instrumented) and, when CC links, links liborrery-measure.so with an rpath to it.\n"
    "Compile-only commands (-c, -E, -S, -M, -MM, -fsyntax-only) get no link flags.\n"
    "  orrery-instrument mpicc -O2 app.c -o app\n"
    "The library is <dir of orrery-instrument>/../lib/liborrery-measure.so, or\n"
    "ORRERY_MEASURE_LIBRARY. ORRERY_INSTRUMENT_SHOW=1 prints the compiler command.\n"
    "Exit status: the compiler's; 1 if the library is missing; 2 for bad usage.\n";

bool is_compile_only(const std::vector<std::string>& arguments) {
  constexpr std::array<std::string_view, 6> kFlags = {"-c", "-E", "-S", "-M", "-MM",
                                                      "-fsyntax-only"};
  return std::any_of(arguments.begin(), arguments.end(), [&](const std::string& argument) {
    return std::find(kFlags.begin(), kFlags.end(), argument) != kFlags.end();
  });
}

/// `CC --version` and friends: no input, nothing to instrument or link.
bool is_query_only(const std::vector<std::string>& arguments) {
  constexpr std::array<std::string_view, 8> kQueries = {
      "--version", "-dumpversion", "-dumpmachine", "--help", "-v", "-showme", "--showme",
      "-print-search-dirs"};
  return !arguments.empty() &&
         std::all_of(arguments.begin(), arguments.end(), [&](const std::string& argument) {
           return std::find(kQueries.begin(), kQueries.end(), argument) != kQueries.end() ||
                  argument.starts_with("-showme:") || argument.starts_with("--showme:") ||
                  argument.starts_with("-print-");
         });
}

/// The library to link: ORRERY_MEASURE_LIBRARY, or ../lib next to this program.
fs::path measure_library() {
  if (const char* path = std::getenv("ORRERY_MEASURE_LIBRARY"); path && *path) {
    return fs::absolute(path);
  }
  std::error_code error;
  const fs::path self = fs::read_symlink("/proc/self/exe", error);
  return (self.parent_path() / ".." / "lib" / "liborrery-measure.so").lexically_normal();
}

std::vector<std::string> link_flags(const fs::path& library) {
  const std::string dir = library.parent_path().string();
  std::vector<std::string> flags = {"-L" + dir, "-Wl,-rpath," + dir,
                                    "-Wl,--push-state,--no-as-needed"};
  if (library.filename() == "liborrery-measure.so") {
    flags.emplace_back("-lorrery-measure");
  } else {
    flags.push_back(library.string());
  }
  flags.emplace_back("-Wl,--pop-state");
  return flags;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fputs(kUsage, stderr);
    return orrery::kExitBadUsage;
  }
  const std::string_view first = argv[1];
  if (first == "--help" || first == "-h") {
    std::fputs(kUsage, stdout);
    return orrery::kExitOk;
  }
  if (first.starts_with("-")) {
    std::fprintf(stderr, "orrery-instrument: the first argument must be the compiler, not '%s'\n%s",
                 argv[1], kUsage);
    return orrery::kExitBadUsage;
  }
  const std::vector<std::string> arguments(argv + 2, argv + argc);
  std::vector<std::string> command = {argv[1]};
  if (is_query_only(arguments)) {
    command.insert(command.end(), arguments.begin(), arguments.end());
  } else {
    command.insert(command.end(), {"-finstrument-functions", "-g",
                                   "-finstrument-functions-exclude-file-list=/usr/include"});
    command.insert(command.end(), arguments.begin(), arguments.end());
    if (!is_compile_only(arguments)) {
      const fs::path library = measure_library();
      if (access(library.c_str(), R_OK) != 0) {
        std::fprintf(stderr,
                     "orrery-instrument: measurement library not found: %s (build the "
                     "orrery-measure target, or set ORRERY_MEASURE_LIBRARY)\n",
                     library.c_str());
        return orrery::kExitBadInput;
      }
      const auto flags = link_flags(library);
      command.insert(command.end(), flags.begin(), flags.end());
    }
  }
  if (const char* show = std::getenv("ORRERY_INSTRUMENT_SHOW"); show && std::string_view(show) == "1") {
    for (const auto& word : command) std::fprintf(stderr, "%s ", word.c_str());
    std::fputc('\n', stderr);
  }
  std::vector<char*> pointers;
  for (auto& word : command) pointers.push_back(word.data());
  pointers.push_back(nullptr);
  execvp(pointers[0], pointers.data());
  std::fprintf(stderr, "orrery-instrument: cannot run '%s': %s\n", argv[1], std::strerror(errno));
  return errno == ENOENT ? 127 : 126;
}

#include "source_lines.h"

#include <filesystem>
#include <sstream>

#include "orrery/bounded_read.h"

namespace orrery::viewer {
namespace {

namespace fs = std::filesystem;

/// Source files beyond this are not shown (a generated file of gigabytes is not source to read).
constexpr std::uintmax_t kMaxSourceBytes = 16u << 20;

}  // namespace

nlohmann::json source_lines(const report::Region& region, const std::vector<std::string>& directories,
                            int before, int after) {
  const auto unavailable = [&region](const std::string& why) {
    return nlohmann::json{{"available", false}, {"name", region.name}, {"file", region.file},
                          {"line", region.line}, {"reason", why}};
  };
  // Score-P's convention: MPI, OpenMP and pthread regions carry a paradigm's name as their file.
  if (region.file.empty() || region.file == "MPI" || region.file == "OMP" || region.file == "PTHREAD") {
    return unavailable(region.name + " has no source file in the report (only compiler-instrumented "
                                     "regions built with debug information, -g, have one).");
  }
  if (region.line <= 0) return unavailable(region.name + " has no line number in the report.");
  std::vector<fs::path> candidates{fs::path(region.file)};
  if (fs::path(region.file).is_relative()) {
    for (const auto& directory : directories) candidates.push_back(fs::path(directory) / region.file);
  }
  for (const auto& candidate : candidates) {
    std::error_code error;
    if (!fs::is_regular_file(candidate, error)) continue;
    const auto text = read_bounded_text(candidate, kMaxSourceBytes);
    if (!text) return unavailable(candidate.string() + " cannot be read (or is larger than 16 MiB).");
    std::istringstream in(*text);
    const int first = std::max(1, region.line - before);
    const int last = region.line + after;
    nlohmann::json lines = nlohmann::json::array();
    std::string line;
    for (int number = 1; number <= last && std::getline(in, line); ++number) {
      if (number >= first) lines.push_back(line);
    }
    if (lines.empty() || static_cast<int>(lines.size()) + first <= region.line) {
      return unavailable(candidate.string() + " has fewer than " + std::to_string(region.line) +
                         " lines: it is not the file the program was built from.");
    }
    return {{"available", true}, {"name", region.name}, {"file", region.file}, {"path", candidate.string()},
            {"line", region.line}, {"first", first}, {"lines", std::move(lines)}};
  }
  return unavailable(region.file + " is not readable here (the viewer looks for it as recorded" +
                     std::string(directories.empty() ? "" : " and in the experiment's directory") + ").");
}

}  // namespace orrery::viewer

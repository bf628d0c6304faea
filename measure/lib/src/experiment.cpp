#include "experiment.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

#include "clock.h"

namespace orrery::measure {
namespace {

bool exists(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0;
}

bool make_directories(const std::string& path) {
  std::string partial;
  std::istringstream parts(path);
  std::string part;
  if (!path.empty() && path[0] == '/') partial = "/";
  while (std::getline(parts, part, '/')) {
    if (part.empty()) continue;
    partial += part;
    if (::mkdir(partial.c_str(), 0755) != 0 && errno != EEXIST) return false;
    partial += '/';
  }
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

std::string program_name() {
  char path[4096] = {};
  const ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
  std::string name = n > 0 ? std::string(path, static_cast<std::size_t>(n)) : "program";
  if (auto slash = name.rfind('/'); slash != std::string::npos) name.erase(0, slash + 1);
  return name;
}

}  // namespace

std::string prepare_experiment(const Settings& settings, std::string& message) {
  std::string dir = settings.experiment_dir;
  if (dir.empty()) {
    const std::string base = "orrery_" + program_name() + "_";
    for (int n = 1; n < 100000; ++n) {
      if (!exists(base + std::to_string(n))) {
        dir = base + std::to_string(n);
        break;
      }
    }
  }
  if (exists(dir + "/traces.otf2") || exists(dir + "/traces")) {
    message = "orrery: experiment directory '" + dir + "' already holds a trace; not measuring this run";
    return "";
  }
  if (!make_directories(dir) || ::access(dir.c_str(), W_OK) != 0) {
    message = "orrery: cannot create or write experiment directory '" + dir + "' (" + std::strerror(errno) +
              "); not measuring this run";
    return "";
  }
  return dir;
}

bool write_json(const std::string& path, const nlohmann::json& value) noexcept {
  try {
    const std::string temp = path + ".tmp." + std::to_string(::getpid());
    bool written = false;
    {
      std::ofstream out(temp);
      out << value.dump(2) << '\n';
      out.flush();
      written = static_cast<bool>(out);
    }
    if (written && std::rename(temp.c_str(), path.c_str()) == 0) return true;
    std::remove(temp.c_str());  // a full disk leaves no half file behind
    return false;
  } catch (...) {
    return false;
  }
}

std::string iso_time(uint64_t realtime_ns) {
  const std::time_t seconds = static_cast<std::time_t>(realtime_ns / 1000000000ULL);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[64];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
  char full[96];
  std::snprintf(full, sizeof full, "%s.%03uZ", text, static_cast<unsigned>((realtime_ns / 1000000ULL) % 1000));
  return full;
}

nlohmann::json command_line() {
  nlohmann::json argv = nlohmann::json::array();
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string arg;
  while (std::getline(in, arg, '\0')) argv.push_back(arg);
  return argv;
}

bool write_library_run_record(const std::string& experiment_dir, nlohmann::json fields) noexcept {
  try {
    fields[run_json::key::kCommand] = command_line();
    return write_json(experiment_dir + "/" + run_json::kFileName, fields);
  } catch (...) {
    return false;
  }
}

void write_abort_marker(const Settings& settings, int rank, int error_code) noexcept {
  try {
    const nlohmann::json marker = {{"rank", rank}, {"error_code", error_code}, {"time", iso_time(realtime_now())}};
    write_json(settings.experiment_dir + "/aborted.json", marker);
    if (!settings.launcher) {
      write_library_run_record(settings.experiment_dir,
                               {{run_json::key::kComplete, false}, {run_json::key::kAborted, marker}});
    }
  } catch (...) {
  }
}

}  // namespace orrery::measure

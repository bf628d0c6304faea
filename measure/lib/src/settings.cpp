#include "settings.h"

#include <cctype>
#include <cstdlib>

namespace orrery::measure {
namespace {

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

bool truthy(const std::string& value) { return value == "1" || value == "true" || value == "yes"; }

}  // namespace

bool parse_size(const std::string& text, std::size_t& bytes) noexcept {
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) return false;
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
  std::string unit(end);
  if (unit.size() == 2 && (unit[1] == 'B' || unit[1] == 'b')) unit.pop_back();
  unsigned long long scale = 1;
  if (unit.empty()) {
    scale = 1;
  } else if (unit.size() == 1) {
    switch (std::toupper(static_cast<unsigned char>(unit[0]))) {
      case 'K': scale = 1ULL << 10; break;
      case 'M': scale = 1ULL << 20; break;
      case 'G': scale = 1ULL << 30; break;
      case 'B': scale = 1; break;
      default: return false;
    }
  } else {
    return false;
  }
  if (value > (~0ULL) / scale) return false;
  bytes = static_cast<std::size_t>(value * scale);
  return true;
}

Settings read_settings(std::string& warnings) {
  Settings s;
  s.experiment_dir = env("ORRERY_EXPERIMENT_DIR");
  s.launcher = truthy(env("ORRERY_LAUNCHER"));
  s.trace_queries = truthy(env("ORRERY_TRACE_QUERIES"));
  s.verbose = truthy(env("ORRERY_VERBOSE"));
  s.filter_path = env("ORRERY_FILTER");
  if (const std::string mode = env("ORRERY_MODE"); !mode.empty()) {
    if (mode == "trace" || mode == "profile") {
      s.mode = mode;
    } else {
      warnings += "orrery: ORRERY_MODE='" + mode + "' is neither 'trace' nor 'profile'; using 'trace'\n";
    }
  }
  if (const std::string size = env("ORRERY_BUFFER_SIZE"); !size.empty()) {
    std::size_t bytes = 0;
    if (parse_size(size, bytes) && bytes > 0) {
      s.buffer_size = bytes;
    } else {
      warnings += "orrery: ORRERY_BUFFER_SIZE='" + size + "' is not a size like 16M; using 16M\n";
    }
  }
  if (const std::string interval = env("ORRERY_SAMPLING_INTERVAL"); !interval.empty()) {
    char* end = nullptr;
    const unsigned long long ms = std::strtoull(interval.c_str(), &end, 10);
    // Digits only (strtoull would take "-1" as a huge number), at most a day.
    if (std::isdigit(static_cast<unsigned char>(interval[0])) && end != nullptr && *end == '\0' &&
        ms <= 86400000ULL) {
      s.sampling_interval_ms = static_cast<unsigned>(ms);
    } else {
      warnings += "orrery: ORRERY_SAMPLING_INTERVAL='" + interval + "' is not a number of ms (0 to 86400000); sampling off\n";
    }
  }
  return s;
}

}  // namespace orrery::measure

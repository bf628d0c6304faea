#include "api_params.h"

#include <cmath>
#include <exception>

#include "orrery/error.h"

namespace orrery::viewer {

std::size_t size_param(const Params& params, const std::string& name, std::size_t limit) {
  const auto it = params.find(name);
  if (it == params.end()) throw UsageError("missing parameter '" + name + "'");
  std::size_t value = 0;
  std::size_t used = 0;
  try {
    value = std::stoul(it->second, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != it->second.size() || value >= limit) {
    throw UsageError("parameter '" + name + "' must be a row below " + std::to_string(limit));
  }
  return value;
}

bool flag_param(const Params& params, const std::string& name, bool fallback) {
  const auto it = params.find(name);
  if (it == params.end()) return fallback;
  if (it->second == "1" || it->second == "true") return true;
  if (it->second == "0" || it->second == "false") return false;
  throw UsageError("parameter '" + name + "' must be 0 or 1");
}

double time_param(const Params& params, const std::string& name, double fallback) {
  const auto it = params.find(name);
  if (it == params.end()) return fallback;
  double value = 0;
  std::size_t used = 0;
  try {
    value = std::stod(it->second, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != it->second.size() || !std::isfinite(value)) {
    throw UsageError("parameter '" + name + "' must be a time in seconds");
  }
  return value;
}

std::size_t count_param(const Params& params, const std::string& name, std::size_t fallback,
                        std::size_t low, std::size_t high) {
  if (params.find(name) == params.end()) return fallback;
  const std::size_t value = size_param(params, name, high + 1);
  if (value < low) {
    throw UsageError("parameter '" + name + "' must be at least " + std::to_string(low));
  }
  return value;
}

}  // namespace orrery::viewer

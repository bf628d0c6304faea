#pragma once
// Reading the query parameters of API requests; each throws UsageError
// (HTTP 400) with a sentence naming the parameter.

#include <cstddef>
#include <string>

#include "api.h"

namespace orrery::viewer {

/// A row number below `limit` (required).
std::size_t size_param(const Params& params, const std::string& name, std::size_t limit);
/// 0/1/true/false, else `fallback` when absent.
bool flag_param(const Params& params, const std::string& name, bool fallback);
/// A finite number of seconds, else `fallback` when absent.
double time_param(const Params& params, const std::string& name, double fallback);
/// A count in [low, high], else `fallback` when absent.
std::size_t count_param(const Params& params, const std::string& name, std::size_t fallback,
                        std::size_t low, std::size_t high);

}  // namespace orrery::viewer

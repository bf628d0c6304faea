#pragma once
// Groups of repeated runs in the viewer (`orrery view --baseline A1 A2 …
// --candidate B1 B2 …`): the trees show each group's mean report, and the
// *Groups* view the statistics `orrery compare --baseline/--candidate`
// computes (report/run_groups.h). The API sees them through this interface,
// so the server core needs no HDF5 reader.

#include <cstddef>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

namespace orrery::viewer {

/// The statistics of a baseline and a candidate group, in the page's rows.
class GroupStatistics {
 public:
  virtual ~GroupStatistics() = default;
  /// The compared rows of `metric` (nullopt: every metric) at the call paths
  /// `keep` marks (empty: all), in the comparison's order (significant first,
  /// then by the share of the run that moved), at most `top`:
  /// {rows: [...], matching, significant}.
  [[nodiscard]] virtual nlohmann::json rows(std::optional<std::size_t> metric,
                                            const std::vector<bool>& keep, std::size_t top) const = 0;
  /// The test's settings and each group's runs with their recorded metadata.
  [[nodiscard]] virtual nlohmann::json summary() const = 0;
};

}  // namespace orrery::viewer

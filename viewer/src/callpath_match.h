#pragma once
// Which region instances of a rank's trace belong to a call path of the
// report: a call path is matched by its chain of region names from the root
// (as comparisons match reports), so the trace and the report agree without
// sharing ids. A report's program root that the trace lacks is skipped.

#include <cstdint>
#include <string>
#include <vector>

#include "orrery/trace/timeline.h"

namespace orrery::viewer {

/// Per instance: whether it is the call path itself, and whether it lies in its subtree.
struct CallpathMatch {
  std::vector<uint8_t> exact;       ///< 1 where the instance's chain equals the call path's
  std::vector<uint8_t> in_subtree;  ///< 1 where it or an enclosing instance is exact
  [[nodiscard]] bool any() const;
};

/// The chain as the trace names it: the report's chain without a leading
/// root whose name no region of the trace has.
std::vector<std::string> trace_chain(const analyzer::timeline::Definitions& definitions,
                                     std::vector<std::string> chain);

/// Matches every instance of `trace` against `chain` (already a trace_chain).
CallpathMatch match_callpath(const analyzer::timeline::Definitions& definitions,
                             const analyzer::timeline::RankTimeline& trace,
                             const std::vector<std::string>& chain);

}  // namespace orrery::viewer

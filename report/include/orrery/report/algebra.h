#pragma once
// Cube algebra as free functions (docs/design.md §5): unite the trees of several
// cubes with old→new row maps, pad what is missing with zeros, then combine
// element-wise. Works per metric, so tools can stream large cubes one metric
// at a time; whole-cube wrappers serve small cubes and tests.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "orrery/report/cube.h"

namespace orrery::report {

/// Where each row of one input lands in the united cube.
struct RowMap {
  std::vector<std::size_t> metrics;    ///< input metric row -> united row
  std::vector<std::size_t> callpaths;  ///< input call path row -> united row
  std::vector<std::size_t> locations;  ///< input location row -> united row
};

/// The union of several cube headers and how each input maps into it.
/// Call paths match by their chain of region names from the root, metrics by
/// name, locations by (rank, thread); the union keeps every row of every input.
struct CubeUnion {
  CubeHeader header;
  std::vector<RowMap> inputs;
  /// input metric row of united metric m in input i, if that input has it.
  [[nodiscard]] std::optional<std::size_t> input_metric(std::size_t input, std::size_t m) const;
};

[[nodiscard]] CubeUnion unite(const std::vector<const CubeHeader*>& headers);

/// For each row of report `a`, the row of report `b` that the union matches
/// with it (same metric name; same chain of region names from the root; same
/// rank and thread), or kNoMatch: the one definition of "the same row" in
/// two reports, for `diff`, `compare` and the viewer's comparisons.
struct RowMatch {
  static constexpr std::size_t kNoMatch = static_cast<std::size_t>(-1);
  std::vector<std::size_t> metrics;
  std::vector<std::size_t> callpaths;
  std::vector<std::size_t> locations;
};
[[nodiscard]] RowMatch match_rows(const CubeHeader& a, const CubeHeader& b);

/// One input's values of a metric, re-indexed into the union (absent rows and locations are 0).
[[nodiscard]] MetricValues remap(const CubeUnion& united, std::size_t input,
                                 const MetricValues& values);

/// How the values of several inputs become one.
enum class Combination {
  kDifference,  ///< input 0 minus input 1
  kMerge,       ///< the first input that has the metric
  kMean,        ///< element-wise mean over all inputs (absent = 0)
  kSum,         ///< element-wise sum over all inputs (absent = 0)
};

/// Loads the values of `input`'s metric row (in that input's own layout).
using MetricLoader = std::function<MetricValues(std::size_t input, std::size_t metric_row)>;

/// The united values of metric `m` of the union, combined as `how` says.
[[nodiscard]] MetricValues combine_metric(const CubeUnion& united, std::size_t m,
                                          Combination how, const MetricLoader& load);

/// Whole-cube versions of the above.
[[nodiscard]] Cube combine(const std::vector<const Cube*>& cubes, Combination how);
[[nodiscard]] Cube diff(const Cube& a, const Cube& b);
[[nodiscard]] Cube merge(const std::vector<const Cube*>& cubes);
[[nodiscard]] Cube mean(const std::vector<const Cube*>& cubes);

/// Picks call paths by region name or chain ("main/solve"): exact text first, else a regex
/// (ECMAScript) that must match the whole name or the whole chain.
class CallpathMatcher {
 public:
  /// A pattern that is not a valid regex (e.g. "operator()") matches literally only.
  explicit CallpathMatcher(std::string pattern);
  [[nodiscard]] std::vector<bool> matches(const CubeHeader& header) const;
  [[nodiscard]] const std::string& pattern() const { return pattern_; }

 private:
  std::string pattern_;
};

/// A call-tree transformation: the new header and where each old call path's values go.
struct CallpathCut {
  CubeHeader header;
  /// Old call path row -> new row whose exclusive value absorbs it, or nullopt if dropped.
  std::vector<std::optional<std::size_t>> destination;
};

/// Keeps only the subtrees rooted at matched call paths (outermost matches become roots).
/// Throws InputError if nothing matches.
[[nodiscard]] CallpathCut plan_reroot(const CubeHeader& header, const CallpathMatcher& matcher);
/// Removes the descendants of matched call paths, folding their values into the match.
/// Throws InputError if nothing matches.
[[nodiscard]] CallpathCut plan_prune(const CubeHeader& header, const CallpathMatcher& matcher);
/// Applies a cut to one metric's values.
[[nodiscard]] MetricValues apply_cut(const CallpathCut& cut, std::size_t old_callpaths,
                                     const MetricValues& values);
/// Whole-cube cut.
[[nodiscard]] Cube apply_cut(const CallpathCut& cut, const Cube& cube);

}  // namespace orrery::report

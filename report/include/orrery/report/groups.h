#pragma once
// Two-level function groups for the load-imbalance analysis (docs/design.md §5
// `/groups`, `/group_values/time`). Functions are grouped at the top by
// what they do (computation, MPI point-to-point, MPI collective, I/O,
// other) and below by source file (MPI and I/O functions without one: by
// function name), or as a user's grouping file says. Each group's time is
// totalled per location, and each group's load similarity to its parent
// (top groups: to the whole run) says whether its imbalance has the same
// shape: the Pearson correlation r of the two per-location vectors, mapped
// to 0–1 as (1 + r) / 2 (docs/analyzer.md, "Function groups", says why).

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "orrery/report/cube.h"

namespace orrery::report {

/// One group (a row of /groups).
struct FunctionGroup {
  std::string name;
  int32_t parent = -1;     ///< row of its top group, -1 for a top group
  double similarity = 1;   ///< load similarity to its parent, 0–1
};

/// The groups and their time per location, [group][location] (seconds).
struct FunctionGroups {
  std::vector<FunctionGroup> groups;
  std::vector<double> time;
  std::size_t locations = 0;
  double filtered = 0;  ///< seconds of the tiny functions left out (not stored)
};

/// A line of a grouping file: regions whose name matches `pattern` (a shell
/// glob) go to `top` / `second` (empty second: by source file).
struct GroupRule {
  std::string top;
  std::string second;
  std::string pattern;
};

/// Reads a grouping file: `TOP / SECOND = GLOB` or `TOP = GLOB` per line,
/// `#` comments and blank lines ignored. Throws InputError naming the line.
[[nodiscard]] std::vector<GroupRule> read_group_rules(const std::string& path);

/// The built-in top groups, in their order (a grouping file's follow).
inline constexpr std::array<const char*, 5> kBuiltinTopGroups = {"Computation", "MPI point-to-point",
                                                                 "MPI collective", "I/O", "Other"};

/// The built-in (top, second-level) group names of a function, as
/// function_groups() names them without a grouping file.
[[nodiscard]] std::pair<std::string, std::string> default_group_of(const Region& region);

/// Functions below this share of all time are left out of the groups.
inline constexpr double kTinyFunctionShare = 0.001;

/// The groups of a cube. `time`: the time of every call path and location,
/// exclusive along the call tree and summed over the time metric's tree
/// ([callpath][location]).
[[nodiscard]] FunctionGroups function_groups(const CubeHeader& header,
                                             const std::vector<double>& time,
                                             const std::vector<GroupRule>& rules = {});

/// function_groups() for a cube whose time arrives in blocks of locations
/// (the analyzer's merge of large cubes), in two passes over the blocks in
/// location order: the regions' totals first (which regions are too small
/// to count), then the groups' time per location. Holds the groups' time
/// (groups x locations) and one block's regions, never regions x locations.
class FunctionGroupBuilder {
 public:
  FunctionGroupBuilder(const CubeHeader& header, std::vector<GroupRule> rules);
  /// Pass 1: `time` [callpath][count] of locations first .. first + count - 1.
  void add_totals(const double* time, std::size_t first, std::size_t count);
  /// Pass 2 (after every block went through pass 1): the same blocks again.
  void add_values(const double* time, std::size_t first, std::size_t count);
  [[nodiscard]] FunctionGroups finish();

 private:
  /// Per region: its time at each location of the block ([region][count]).
  void regions_of(const double* time, std::size_t count);
  void assign_groups();

  const CubeHeader& header_;
  std::vector<GroupRule> rules_;
  std::vector<bool> has_callpath_;     ///< per region
  std::vector<double> region_total_;   ///< per region
  std::vector<double> block_;          ///< [region][count] of the current block
  std::vector<int> group_of_region_;   ///< index into keys_, -1: left out
  std::vector<std::string> tops_;
  std::vector<std::pair<std::size_t, std::string>> keys_;  ///< (top, second) in map order
  std::vector<std::vector<double>> seconds_;               ///< per key, per location
  double filtered_ = 0;
  bool assigned_ = false;
};

/// Load similarity of two per-location vectors: (1 + r) / 2 with r their
/// Pearson correlation; 1 if both are flat, 0.5 if only one is.
[[nodiscard]] double load_similarity(const double* a, const double* b, std::size_t n);

/// Adds /groups and /group_values/time to a written report. Throws InputError.
void write_function_groups(const std::string& path, const FunctionGroups& groups);
/// The groups of a report; nullopt if it has none (reports of older
/// analyzers, other producers). Throws InputError if they are corrupt.
[[nodiscard]] std::optional<FunctionGroups> read_function_groups(const std::string& path,
                                                                 std::size_t locations);

}  // namespace orrery::report

#pragma once
// The base of every pattern: its metric's metadata (name, display name,
// unit, parent, description, diagnosis) and the replay events it listens to.
// Patterns add severities to a per-rank (metric, call path) map.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "orrery/trace/call_tree.h"
#include "orrery/replay/event_bus.h"
#include "orrery/trace/trace.h"

namespace orrery::patterns {

/// What kind of value a metric holds, which decides how it is combined.
enum class MetricKind : uint8_t {
  kCategory,   ///< a time category filled from region classification
  kWaitState,  ///< waiting time carved out of the call's time category
  kCounter,    ///< visits, bytes and counts
};

/// A row of the metric table (docs/design.md §4): stable name and the user's help.
struct MetricInfo {
  std::string name;
  std::string display_name;
  std::string unit;    ///< "sec", "occ" or "bytes"
  std::string parent;  ///< name of the parent metric, empty for a root
  std::string description;
  std::string diagnosis;  ///< what to do about it
  MetricKind kind = MetricKind::kCategory;
};

/// Severities of one rank: values[metric row][call path].
class SeverityMap {
 public:
  SeverityMap(std::size_t metrics, std::size_t callpaths)
      : values_(metrics, std::vector<double>(callpaths, 0.0)) {}
  void add(std::size_t metric, uint32_t callpath, double value) {
    if (callpath < values_[metric].size()) values_[metric][callpath] += value;
  }
  /// The value's storage (callpath < callpaths()), for a pattern that adds
  /// to the same cell per event; valid as long as this map.
  [[nodiscard]] double* cell(std::size_t metric, uint32_t callpath) { return &values_[metric][callpath]; }
  [[nodiscard]] double get(std::size_t metric, uint32_t callpath) const {
    return values_[metric][callpath];
  }
  [[nodiscard]] const std::vector<double>& metric(std::size_t row) const { return values_[row]; }
  [[nodiscard]] std::size_t metrics() const { return values_.size(); }
  [[nodiscard]] std::size_t callpaths() const { return values_.empty() ? 0 : values_[0].size(); }

 private:
  std::vector<std::vector<double>> values_;
};

class PatternRegistry;

/// What a pattern sees while it is attached to one rank's replay.
struct PatternContext {
  analyzer::EventBus& bus;
  SeverityMap& severities;
  const analyzer::Definitions& definitions;
  const analyzer::CallTree& tree;
  const PatternRegistry& registry;
  double seconds_per_tick = 1e-9;
};

/// One metric and the detection that fills it.
class Pattern {
 public:
  virtual ~Pattern() = default;
  Pattern() = default;
  Pattern(const Pattern&) = delete;
  Pattern& operator=(const Pattern&) = delete;

  [[nodiscard]] virtual MetricInfo info() const = 0;
  /// Subscribes to the replay events this pattern needs (none by default).
  virtual void attach(PatternContext& /*context*/) {}
  /// Runs after all replays of this rank.
  virtual void finish(PatternContext& /*context*/) {}

  [[nodiscard]] std::size_t row() const { return row_; }
  void set_row(std::size_t row) { row_ = row; }

 private:
  std::size_t row_ = 0;
};

}  // namespace orrery::patterns

#pragma once
// The findings the page opens on: ranked statements of what costs time,
// where, on which processes, and what to do. They come from sources behind
// one interface, so that more (root-cause findings from `orrery findings` or
// optional data in report.h5) can be added next to the wait-state findings
// that every report supports.

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report_data.h"

namespace orrery::viewer {

/// One finding, as the page shows and links it (see docs/viewer.md "Findings").
struct Finding {
  std::string source;      ///< the FindingSource's name
  std::string title;       ///< e.g. "Late Sender"
  std::string metric;      ///< metric name to select (may be empty)
  double value = 0;        ///< in the metric's unit
  std::string unit;
  double share = 0;        ///< of the whole run's time (0-1; 0 if not time)
  int64_t callpath = -1;   ///< call-path row to select, -1 for none
  double callpath_value = 0;
  std::vector<int64_t> locations;      ///< most affected location rows, worst first
  std::vector<double> location_values;
  std::string why;         ///< what was measured, in a sentence
  std::string advice;      ///< what to do
  double score = 0;        ///< ranks findings across sources (seconds of time at stake)

  [[nodiscard]] nlohmann::json to_json() const;
};

/// Somewhere findings come from.
class FindingSource {
 public:
  virtual ~FindingSource() = default;
  [[nodiscard]] virtual std::string name() const = 0;
  /// The findings for `report`; throws InputError if its data is unreadable.
  [[nodiscard]] virtual std::vector<Finding> findings(ReportData& report) = 0;
};

/// Findings from the wait-state metrics of any report: the largest ones, at
/// their hottest call path and most affected processes, with the metric's diagnosis.
class WaitStateFindings : public FindingSource {
 public:
  explicit WaitStateFindings(std::size_t top = 8) : top_(top) {}
  [[nodiscard]] std::string name() const override { return "wait states"; }
  [[nodiscard]] std::vector<Finding> findings(ReportData& report) override;

 private:
  std::size_t top_;
};

/// Every source's findings, ranked by score; a failing source adds a note instead.
nlohmann::json collect_findings(ReportData& report,
                                const std::vector<std::unique_ptr<FindingSource>>& sources);

}  // namespace orrery::viewer

#pragma once
// Findings, first (issue 10): the wait states of a report ranked by what
// removing their cause would gain, each with what (the pattern), where (its
// call path and most affected processes), why (the root-cause call paths and
// the processes that carry their delay costs), gain, confidence and advice.
// One library function for `orrery findings`, the analyzer's closing
// summary and the viewer's findings page.

#include <cstddef>
#include <string>
#include <vector>

namespace orrery::report {

/// A process and a value there (seconds).
struct RankValue {
  int rank = 0;
  double seconds = 0;
};

/// One call path where delays caused the waiting, with its costs.
struct RootCause {
  std::size_t callpath = 0;  ///< row in /callpaths
  std::string path;          ///< "main/relax"
  double short_term = 0;     ///< seconds of waiting caused directly
  double long_term = 0;      ///< seconds of waiting caused further down the chain
  std::vector<RankValue> ranks;  ///< processes carrying the costs, largest first
};

/// One finding: a wait-state pattern and its root causes.
struct RootCauseFinding {
  std::string pattern;        ///< the wait-state metric, e.g. "late_sender"
  std::string title;          ///< its display name
  double waiting = 0;         ///< seconds, with its sub-metrics
  double share = 0;           ///< of the run's time (0-1)
  std::size_t callpath = 0;   ///< where most of the waiting is
  std::string path;
  std::vector<RankValue> affected;  ///< most affected processes
  std::vector<RootCause> causes;    ///< largest delay costs first (may be empty)
  std::string delay_metric;   ///< the aggregate delay metric ("delay_late_sender"); empty if none
  double delay_costs = 0;     ///< its total: short-term + long-term costs, seconds
  double gain = 0;            ///< estimated run-time saving, seconds
  std::string gain_basis;     ///< "performance_impact" or "delay costs"
  double explained = 0;       ///< share of the waiting its short-term delay costs explain (0-1)
  double clock_corrections = 0;  ///< clock-condition corrections on the processes involved
  std::string advice;
};

/// The top `top` findings of the report at `path` (0: all), ranked by gain.
/// Throws InputError if the report is unreadable. A report without delay
/// metrics (older analyzers) gives findings without causes.
[[nodiscard]] std::vector<RootCauseFinding> root_cause_findings(const std::string& path,
                                                                std::size_t top);

/// A finding's advice: what to change where, from its top root cause (the
/// metric's `diagnosis` where no delay costs explain the waiting).
[[nodiscard]] std::string root_cause_advice(const RootCauseFinding& finding, const std::string& diagnosis);

/// The findings as text, numbered, for a terminal (`orrery findings`, the
/// analyzer's closing summary).
[[nodiscard]] std::string findings_text(const std::vector<RootCauseFinding>& findings);


}  // namespace orrery::report

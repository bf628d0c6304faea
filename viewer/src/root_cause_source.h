#pragma once
// The viewer's root-cause findings: the same findings as `orrery findings`
// (orrery/report/findings.h), as a FindingSource of the findings page.

#include <string>
#include <vector>

#include "findings.h"

namespace orrery::viewer {

/// Root causes of the wait states of the report at a path (read on demand).
class RootCauseFindings : public FindingSource {
 public:
  explicit RootCauseFindings(std::string path, std::size_t top = 5)
      : path_(std::move(path)), top_(top) {}
  [[nodiscard]] std::string name() const override { return "root causes"; }
  [[nodiscard]] std::vector<Finding> findings(ReportData& report) override;

 private:
  std::string path_;
  std::size_t top_;
};

}  // namespace orrery::viewer

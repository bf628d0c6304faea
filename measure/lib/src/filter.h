#pragma once
// The region filter (ORRERY_FILTER): lines `EXCLUDE <glob>` / `INCLUDE <glob>`
// matched against demangled compiler and user region names; the last matching
// rule wins; a name no rule matches is included. `#` starts a comment.

#include <string>
#include <vector>

namespace orrery::measure {

/// Glob include/exclude rules for region names.
class Filter {
 public:
  /// Parses filter text; false (and `error` set to "line N: ...") if malformed.
  bool parse(const std::string& text, std::string& error);
  /// Reads and parses a filter file.
  bool load(const std::string& path, std::string& error);
  [[nodiscard]] bool excluded(const std::string& name) const;
  [[nodiscard]] bool empty() const noexcept { return rules_.empty(); }

 private:
  struct Rule {
    bool include;
    std::string pattern;
  };
  std::vector<Rule> rules_;
};

}  // namespace orrery::measure

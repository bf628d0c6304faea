#include "filter.h"

#include <fnmatch.h>

#include <fstream>
#include <sstream>

namespace orrery::measure {

bool Filter::parse(const std::string& text, std::string& error) {
  std::istringstream in(text);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::istringstream words(line);
    std::string keyword;
    if (!(words >> keyword)) continue;
    std::string pattern;
    std::getline(words >> std::ws, pattern);
    while (!pattern.empty() && (pattern.back() == ' ' || pattern.back() == '\t' || pattern.back() == '\r')) {
      pattern.pop_back();
    }
    if (keyword != "INCLUDE" && keyword != "EXCLUDE") {
      error = "line " + std::to_string(number) + ": expected INCLUDE or EXCLUDE, got '" + keyword + "'";
      return false;
    }
    if (pattern.empty()) {
      error = "line " + std::to_string(number) + ": " + keyword + " needs a pattern";
      return false;
    }
    rules_.push_back({keyword == "INCLUDE", pattern});
  }
  return true;
}

bool Filter::load(const std::string& path, std::string& error) {
  std::ifstream file(path);
  if (!file) {
    error = "cannot read '" + path + "'";
    return false;
  }
  std::ostringstream text;
  text << file.rdbuf();
  return parse(text.str(), error);
}

bool Filter::excluded(const std::string& name) const {
  for (auto it = rules_.rbegin(); it != rules_.rend(); ++it) {
    if (fnmatch(it->pattern.c_str(), name.c_str(), 0) == 0) return !it->include;
  }
  return false;
}

}  // namespace orrery::measure

// Call-tree cuts: re-rooting at matched call paths and pruning below them.

#include <map>
#include <regex>

#include "orrery/error.h"
#include "orrery/report/algebra.h"
#include "orrery/report/trees.h"

namespace orrery::report {
namespace {

/// Builds the cut's header from the kept rows (a pre-order subsequence), compacting regions.
CallpathCut keep_rows(const CubeHeader& header, const std::vector<bool>& kept,
                      const std::vector<std::optional<std::size_t>>& absorbed_by) {
  CallpathCut cut;
  cut.header.attributes = header.attributes;
  cut.header.metrics = header.metrics;
  cut.header.locations = header.locations;
  std::vector<std::optional<std::size_t>> new_row(header.callpaths.size());
  std::map<int32_t, int32_t> region_rows;
  for (std::size_t row = 0; row < header.callpaths.size(); ++row) {
    if (!kept[row]) {
      continue;
    }
    const Callpath& old = header.callpaths[row];
    int32_t parent = -1;
    if (old.parent >= 0 && kept[static_cast<std::size_t>(old.parent)]) {
      parent = static_cast<int32_t>(*new_row[static_cast<std::size_t>(old.parent)]);
    }
    const auto [found, inserted] =
        region_rows.try_emplace(old.region, static_cast<int32_t>(cut.header.regions.size()));
    if (inserted) {
      cut.header.regions.push_back(header.regions.at(static_cast<std::size_t>(old.region)));
    }
    new_row[row] = cut.header.callpaths.size();
    cut.header.callpaths.push_back(Callpath{parent, found->second});
  }
  cut.destination.resize(header.callpaths.size());
  for (std::size_t row = 0; row < header.callpaths.size(); ++row) {
    if (kept[row]) {
      cut.destination[row] = new_row[row];
    } else if (absorbed_by[row]) {
      cut.destination[row] = new_row[*absorbed_by[row]];
    }
  }
  return cut;
}

[[noreturn]] void nothing_matched(const CallpathMatcher& matcher) {
  throw InputError("no call path matches '" + matcher.pattern() + "'");
}

}  // namespace

CallpathMatcher::CallpathMatcher(std::string pattern) : pattern_(std::move(pattern)) {}

std::vector<bool> CallpathMatcher::matches(const CubeHeader& header) const {
  const auto labels = callpath_labels(header);
  std::optional<std::regex> expression;
  try {
    expression.emplace(pattern_, std::regex::ECMAScript);
  } catch (const std::regex_error&) {
    // Not a valid regex (e.g. "operator()"): match the text literally only.
  }
  std::vector<bool> out(header.callpaths.size(), false);
  for (std::size_t row = 0; row < out.size(); ++row) {
    const std::string& name =
        header.regions.at(static_cast<std::size_t>(header.callpaths[row].region)).name;
    out[row] = name == pattern_ || labels[row] == pattern_ ||
               (expression && (std::regex_match(name, *expression) ||
                               std::regex_match(labels[row], *expression)));
  }
  return out;
}

CallpathCut plan_reroot(const CubeHeader& header, const CallpathMatcher& matcher) {
  const auto matched = matcher.matches(header);
  std::vector<bool> inside(header.callpaths.size(), false);
  bool any = false;
  for (std::size_t row = 0; row < inside.size(); ++row) {
    const int32_t parent = header.callpaths[row].parent;
    inside[row] = matched[row] || (parent >= 0 && inside[static_cast<std::size_t>(parent)]);
    any = any || matched[row];
  }
  if (!any) {
    nothing_matched(matcher);
  }
  return keep_rows(header, inside, std::vector<std::optional<std::size_t>>(inside.size()));
}

CallpathCut plan_prune(const CubeHeader& header, const CallpathMatcher& matcher) {
  const auto matched = matcher.matches(header);
  std::vector<bool> kept(header.callpaths.size(), true);
  // absorbed_by[row]: the outermost matched strict ancestor, which takes this row's values.
  std::vector<std::optional<std::size_t>> absorbed_by(kept.size());
  bool any = false;
  for (std::size_t row = 0; row < kept.size(); ++row) {
    any = any || matched[row];
    const int32_t parent = header.callpaths[row].parent;
    if (parent < 0) {
      continue;
    }
    const auto parent_row = static_cast<std::size_t>(parent);
    if (absorbed_by[parent_row]) {
      absorbed_by[row] = absorbed_by[parent_row];
    } else if (matched[parent_row]) {
      absorbed_by[row] = parent_row;
    }
    kept[row] = !absorbed_by[row];
  }
  if (!any) {
    nothing_matched(matcher);
  }
  return keep_rows(header, kept, absorbed_by);
}

MetricValues apply_cut(const CallpathCut& cut, std::size_t old_callpaths,
                       const MetricValues& values) {
  const std::size_t width = cut.header.locations.size();
  MetricValues out(cut.header.callpaths.size() * width, 0.0);
  for (std::size_t row = 0; row < old_callpaths; ++row) {
    if (!cut.destination[row]) {
      continue;
    }
    const double* source = values.data() + row * width;
    double* target = out.data() + *cut.destination[row] * width;
    for (std::size_t l = 0; l < width; ++l) {
      target[l] += source[l];
    }
  }
  return out;
}

Cube apply_cut(const CallpathCut& cut, const Cube& cube) {
  Cube out;
  out.header = cut.header;
  for (const MetricValues& values : cube.values) {
    out.values.push_back(apply_cut(cut, cube.header.callpaths.size(), values));
  }
  return out;
}

}  // namespace orrery::report

// The XML export: attributes for identifiers and numbers, elements for free
// text, one <row> of space-separated values (one per location) per call path.
// The schema is docs/orrery-report.xsd; keep the two in step.

#include "xml_export.h"

#include <algorithm>
#include <cmath>

#include "format.h"
#include "orrery/report/trees.h"
#include "xml_text.h"

namespace orrery::report::tools {
namespace {

/// An xs:double lexical value (INF, -INF, NaN are spelled as XML Schema wants).
std::string xs_double(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "INF" : "-INF";
  return exact_number(value);
}

std::string attribute(const char* name, const std::string& value) {
  return std::string(" ") + name + "=\"" + xml_escape(value) + "\"";
}

}  // namespace

void export_xml(const CubeReader& reader, const std::vector<std::size_t>& metrics, bool zeros,
                std::ostream& out) {
  const CubeHeader& header = reader.header();
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<orrery-report format_version=\"1\""
      << attribute("creator", header.attributes.creator)
      << attribute("experiment", header.attributes.experiment)
      << attribute("created", header.attributes.created) << ">\n <metrics>\n";
  for (std::size_t m = 0; m < header.metrics.size(); ++m) {
    const Metric& metric = header.metrics[m];
    out << "  <metric" << attribute("id", std::to_string(m)) << attribute("name", metric.name)
        << attribute("parent", std::to_string(metric.parent)) << attribute("unit", metric.unit) << ">"
        << "<display_name>" << xml_escape(metric.display_name) << "</display_name>"
        << "<description>" << xml_escape(metric.description) << "</description>"
        << "<diagnosis>" << xml_escape(metric.diagnosis) << "</diagnosis></metric>\n";
  }
  out << " </metrics>\n <regions>\n";
  for (std::size_t r = 0; r < header.regions.size(); ++r) {
    const Region& region = header.regions[r];
    out << "  <region" << attribute("id", std::to_string(r)) << attribute("name", region.name)
        << attribute("file", region.file) << attribute("line", std::to_string(region.line))
        << attribute("paradigm", region.paradigm) << "/>\n";
  }
  out << " </regions>\n <callpaths>\n";
  const auto labels = callpath_labels(header);
  for (std::size_t c = 0; c < header.callpaths.size(); ++c) {
    out << "  <callpath" << attribute("id", std::to_string(c))
        << attribute("parent", std::to_string(header.callpaths[c].parent))
        << attribute("region", std::to_string(header.callpaths[c].region)) << attribute("path", labels[c])
        << "/>\n";
  }
  out << " </callpaths>\n <locations>\n";
  for (std::size_t l = 0; l < header.locations.size(); ++l) {
    const Location& location = header.locations[l];
    out << "  <location" << attribute("id", std::to_string(l)) << attribute("rank", std::to_string(location.rank))
        << attribute("thread", std::to_string(location.thread)) << attribute("node", location.node)
        << attribute("name", location.name) << "/>\n";
  }
  out << " </locations>\n";
  const std::size_t width = header.locations.size();
  for (const std::size_t m : metrics) {
    const MetricValues values = reader.read_metric(m);
    out << " <values" << attribute("metric", header.metrics[m].name) << ">\n";
    for (std::size_t c = 0; c < header.callpaths.size(); ++c) {
      const auto first = values.begin() + static_cast<long>(c * width);
      const auto last = first + static_cast<long>(width);
      if (!zeros && std::all_of(first, last, [](double v) { return v == 0.0; })) continue;
      out << "  <row" << attribute("callpath", std::to_string(c)) << ">";
      for (auto it = first; it != last; ++it) out << (it == first ? "" : " ") << xs_double(*it);
      out << "</row>\n";
    }
    out << " </values>\n";
  }
  out << "</orrery-report>\n";
}

}  // namespace orrery::report::tools

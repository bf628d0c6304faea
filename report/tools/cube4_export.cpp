// CUBE4 as described by the public format documentation (CubeLib; pyCubexR's
// docs/cube_file_format.md): a tar holding anchor.xml (metric tree, regions
// and call tree, system tree) and, per metric id, "<id>.index" (header
// "CUBEX.INDEX", int32 1 as endianness check, uint16 version 0, uint8 index
// type 1 = sparse, uint32 N, then N uint32 cnode ids ascending) and
// "<id>.data" ("CUBEX.DATA", then N x L doubles: one per cnode in index
// order, one per location in id order). Values stay exclusive in both trees,
// as Orrery stores them and as CUBE's metric type EXCLUSIVE means.

#include "cube4_export.h"

#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "orrery/error.h"
#include "tar_writer.h"
#include "orrery/report/trees.h"
#include "xml_text.h"

namespace orrery::report::tools {
namespace {

/// The parent rows of a tree's rows (metrics or call paths).
template <typename Row>
std::vector<int32_t> parents_of(const std::vector<Row>& rows) {
  std::vector<int32_t> parents;
  parents.reserve(rows.size());
  for (const Row& row : rows) parents.push_back(row.parent);
  return parents;
}

std::string element(const char* name, const std::string& text) {
  return std::string("<") + name + ">" + xml_escape(text) + "</" + name + ">";
}

std::string indent(std::size_t depth) { return std::string(depth + 2, ' '); }

void write_metrics(std::ostream& xml, const CubeHeader& header) {
  walk_tree(
      parents_of(header.metrics),
      [&](std::size_t row, std::size_t depth) {
        const Metric& m = header.metrics[row];
        std::string description = m.description;
        if (!m.diagnosis.empty()) description += (description.empty() ? "" : " ") + std::string("Diagnosis: ") + m.diagnosis;
        xml << indent(depth) << "<metric id=\"" << row << "\" type=\"EXCLUSIVE\">" << element("disp_name", m.display_name)
            << element("uniq_name", m.name) << "<dtype>DOUBLE</dtype>" << element("uom", m.unit) << "<url></url>"
            << element("descr", description) << "\n";
      },
      [&](std::size_t, std::size_t depth) { xml << indent(depth) << "</metric>\n"; });
}

void write_cnodes(std::ostream& xml, const CubeHeader& header) {
  walk_tree(
      parents_of(header.callpaths),
      [&](std::size_t row, std::size_t depth) {
        xml << indent(depth) << "<cnode id=\"" << row << "\" calleeId=\"" << header.callpaths[row].region << "\">\n";
      },
      [&](std::size_t, std::size_t depth) { xml << indent(depth) << "</cnode>\n"; });
}

/// Machine, then one system tree node per run of consecutive locations on the
/// same host, a location group per rank and a location per thread. Location ids
/// are the report's location rows, so the data files keep the report's order.
/// The system tree's elements spell their id attribute "Id", as CubeLib does.
void write_system(std::ostream& xml, const CubeHeader& header) {
  xml << " <system>\n  <systemtreenode Id=\"0\"><name>machine</name><class>machine</class>\n";
  const auto& locations = header.locations;
  std::size_t node_id = 1;
  std::size_t group_id = 0;
  std::size_t row = 0;
  while (row < locations.size()) {
    const std::string& host = locations[row].node;
    xml << "   <systemtreenode Id=\"" << node_id++ << "\">" << element("name", host.empty() ? "node" : host)
        << "<class>node</class>\n";
    while (row < locations.size() && locations[row].node == host) {
      const int32_t rank = locations[row].rank;
      xml << "    <locationgroup Id=\"" << group_id++ << "\">" << element("name", "rank " + std::to_string(rank))
          << "<rank>" << rank << "</rank><type>process</type>\n";
      while (row < locations.size() && locations[row].node == host && locations[row].rank == rank) {
        const Location& l = locations[row];
        xml << "     <location Id=\"" << row << "\">"
            << element("name", l.name.empty() ? "thread " + std::to_string(l.thread) : l.name) << "<rank>"
            << l.thread << "</rank><type>thread</type></location>\n";
        ++row;
      }
      xml << "    </locationgroup>\n";
    }
    xml << "   </systemtreenode>\n";
  }
  xml << "  </systemtreenode>\n </system>\n";
}

std::string anchor_xml(const CubeHeader& header) {
  std::ostringstream xml;
  xml << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<cube version=\"4.0\">\n"
      << " <attr key=\"CUBE_CT_AGGR\" value=\"SUM\"/>\n"
      << " <attr key=\"Creator\" value=\"" << xml_escape(header.attributes.creator) << " (orrery export)\"/>\n"
      << " <attr key=\"Experiment\" value=\"" << xml_escape(header.attributes.experiment) << "\"/>\n"
      << " <attr key=\"Created\" value=\"" << xml_escape(header.attributes.created) << "\"/>\n"
      << " <doc><mirrors></mirrors></doc>\n <metrics>\n";
  write_metrics(xml, header);
  xml << " </metrics>\n <program>\n";
  for (std::size_t r = 0; r < header.regions.size(); ++r) {
    const Region& region = header.regions[r];
    const std::string line = region.line > 0 ? std::to_string(region.line) : "-1";
    xml << "  <region id=\"" << r << "\" mod=\"" << xml_escape(region.file) << "\" begin=\"" << line
        << "\" end=\"" << line << "\">" << element("name", region.name) << element("mangled_name", region.name)
        << element("paradigm", region.paradigm) << "<role>function</role><url></url><descr></descr></region>\n";
  }
  write_cnodes(xml, header);
  xml << " </program>\n";
  write_system(xml, header);
  xml << "</cube>\n";
  return xml.str();
}

template <typename T>
void append(std::string& out, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out.append(bytes, sizeof(T));
}

std::string index_file(std::size_t n_callpaths) {
  std::string out = "CUBEX.INDEX";
  append<int32_t>(out, 1);   // endianness check, in this machine's byte order
  append<uint16_t>(out, 0);  // version
  append<uint8_t>(out, 1);   // sparse index: the cnode ids follow
  append<uint32_t>(out, static_cast<uint32_t>(n_callpaths));
  for (std::size_t c = 0; c < n_callpaths; ++c) append<uint32_t>(out, static_cast<uint32_t>(c));
  return out;
}

std::string data_file(const MetricValues& values) {
  std::string out = "CUBEX.DATA";
  out.reserve(out.size() + values.size() * sizeof(double));
  for (const double value : values) append<double>(out, value);
  return out;
}

}  // namespace

void export_cube4(const CubeReader& reader, const std::string& output) {
  const CubeHeader& header = reader.header();
  if (header.callpaths.size() > UINT32_MAX) throw InputError(output + ": too many call paths for CUBE4");
  std::ofstream file(output, std::ios::binary | std::ios::trunc);
  if (!file) throw InputError(output + ": cannot be written");
  TarWriter tar(file);
  tar.add("anchor.xml", anchor_xml(header));
  const std::string index = index_file(header.callpaths.size());
  for (std::size_t m = 0; m < header.metrics.size(); ++m) {
    tar.add(std::to_string(m) + ".index", index);
    tar.add(std::to_string(m) + ".data", data_file(reader.read_metric(m)));
  }
  tar.finish();
  file.flush();
  if (!file) throw InputError(output + ": write failed");
}

}  // namespace orrery::report::tools

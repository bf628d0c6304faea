#pragma once
// Text for XML documents the exports write (CUBE4's anchor.xml, the XML export).

#include <string>
#include <string_view>

namespace orrery::report::tools {

/// `text` with &, <, >, " and ' escaped and control characters other than
/// tab and newline dropped (XML 1.0 does not allow them), for element text
/// and attribute values alike.
[[nodiscard]] std::string xml_escape(std::string_view text);

}  // namespace orrery::report::tools

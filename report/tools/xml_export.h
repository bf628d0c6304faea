#pragma once
// `orrery export REPORT --format xml`: the whole cube as one XML document for
// exchange between sites, valid against the published schema
// docs/orrery-report.xsd.

#include <ostream>
#include <string>
#include <vector>

#include "orrery/report/hdf5_io.h"

namespace orrery::report::tools {

/// Writes the header and the values of `metrics` (rows of /metrics); call
/// paths whose values are all zero are left out unless `zeros`.
void export_xml(const CubeReader& reader, const std::vector<std::size_t>& metrics, bool zeros,
                std::ostream& out);

}  // namespace orrery::report::tools

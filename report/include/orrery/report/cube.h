#pragma once
// The cube data model: metric tree x call tree x locations, with values that
// are exclusive in both trees (docs/design.md §5). Plain data; the operations on it
// (HDF5 I/O, algebra) are free functions in their own headers.

#include <cstdint>
#include <string>
#include <vector>

namespace orrery::report {

/// One node of the metric tree (a row of /metrics).
struct Metric {
  std::string name;          ///< stable identifier, e.g. "late_sender"
  std::string display_name;  ///< e.g. "Late Sender"
  int32_t parent = -1;       ///< row in Cube::metrics, -1 for a root
  std::string unit;          ///< "sec", "occ" or "bytes"
  std::string description;   ///< what the metric measures
  std::string diagnosis;     ///< what to do about it (an addition to §5)
};

/// A code region (a row of /regions).
struct Region {
  std::string name;      ///< demangled
  std::string file;      ///< empty if unknown
  int32_t line = 0;      ///< 0 if unknown
  std::string paradigm;  ///< "mpi", "compiler", "user", "measurement"
};

/// One node of the call tree (a row of /callpaths).
struct Callpath {
  int32_t parent = -1;  ///< row in Cube::callpaths, -1 for a root
  int32_t region = 0;   ///< row in Cube::regions
};

/// One process/thread (a row of /locations).
struct Location {
  int32_t rank = 0;
  int32_t thread = 0;
  std::string node;  ///< host name
  std::string name;  ///< e.g. "rank 3"
};

/// The root attributes of report.h5.
struct CubeAttributes {
  std::string creator;     ///< e.g. "orrery-analyze 0.1.0"
  std::string experiment;  ///< experiment directory or name
  std::string created;     ///< ISO 8601
};

/// Everything about a cube except its values: small, always read whole.
struct CubeHeader {
  CubeAttributes attributes;
  std::vector<Metric> metrics;      ///< pre-order: a parent before its children
  std::vector<Region> regions;
  std::vector<Callpath> callpaths;  ///< pre-order: a parent before its children
  std::vector<Location> locations;
};

/// Values of one metric, row-major [callpath][location], exclusive in both trees.
using MetricValues = std::vector<double>;

/// A whole cube in memory: header plus values[m] for metric row m, each of
/// size callpaths.size() * locations.size().
struct Cube {
  CubeHeader header;
  std::vector<MetricValues> values;
};

}  // namespace orrery::report

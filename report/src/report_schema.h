#pragma once
// The layout of report.h5 (docs/design.md §5), defined once: every table's
// path and column names, as the writer writes them and the reader looks
// them up. The tests outside the project read these exact names.

namespace orrery::report::schema {

inline constexpr const char* kValuesGroup = "values";  ///< /values/<metric>

namespace metrics {
inline constexpr const char* kTable = "metrics";
inline constexpr const char* kName = "name";
inline constexpr const char* kDisplayName = "display_name";
inline constexpr const char* kParent = "parent";
inline constexpr const char* kUnit = "unit";
inline constexpr const char* kDescription = "description";
inline constexpr const char* kDiagnosis = "diagnosis";  ///< optional (an addition)
}  // namespace metrics

namespace regions {
inline constexpr const char* kTable = "regions";
inline constexpr const char* kName = "name";
inline constexpr const char* kFile = "file";
inline constexpr const char* kLine = "line";
inline constexpr const char* kParadigm = "paradigm";
}  // namespace regions

namespace callpaths {
inline constexpr const char* kTable = "callpaths";
inline constexpr const char* kParent = "parent";
inline constexpr const char* kRegion = "region";
}  // namespace callpaths

namespace locations {
inline constexpr const char* kTable = "locations";
inline constexpr const char* kRank = "rank";
inline constexpr const char* kThread = "thread";
inline constexpr const char* kNode = "node";
inline constexpr const char* kName = "name";
}  // namespace locations

namespace clock_corrections {
inline constexpr const char* kTable = "clock_corrections";
inline constexpr const char* kRank = "rank";
inline constexpr const char* kViolations = "violations";
inline constexpr const char* kCorrected = "corrected";
inline constexpr const char* kMoved = "moved";
inline constexpr const char* kMaxShift = "max_shift";
}  // namespace clock_corrections

namespace efficiency {
inline constexpr const char* kTable = "efficiency";
inline constexpr const char* kName = "name";
inline constexpr const char* kValue = "value";
inline constexpr const char* kDescription = "description";
}  // namespace efficiency

namespace groups {
inline constexpr const char* kTable = "groups";
inline constexpr const char* kName = "name";
inline constexpr const char* kParent = "parent";
inline constexpr const char* kSimilarity = "similarity";
inline constexpr const char* kValuesGroup = "group_values";
inline constexpr const char* kTimeValues = "group_values/time";
}  // namespace groups

}  // namespace orrery::report::schema

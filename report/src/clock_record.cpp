#include "orrery/report/clock_record.h"

#include <algorithm>
#include <cstdio>

#include "hdf5_handle.h"
#include "hdf5_tables.h"
#include "report_schema.h"

namespace orrery::report {
namespace {

constexpr const char* kTable = schema::clock_corrections::kTable;
constexpr const char* kAttribute = "clock";

}  // namespace

void write_clock_record(const std::string& path, const ClockRecord& record) {
  h5::silence_errors();
  h5::Handle file = h5::checked(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose, path,
                                "cannot open the report to add its clock record");
  if (!record.clock.empty()) h5::write_string_attribute(file.get(), path, kAttribute, record.clock);
  const std::size_t rows = record.corrections.size();
  std::vector<int32_t> ranks;
  std::vector<double> violations, corrected, moved, max_shift;
  for (const ClockCorrectionRow& row : record.corrections) {
    ranks.push_back(row.rank);
    violations.push_back(row.violations);
    corrected.push_back(row.corrected);
    moved.push_back(row.moved);
    max_shift.push_back(row.max_shift);
  }
  h5::write_table(file.get(), path, kTable,
                  {{schema::clock_corrections::kRank, ranks}, {schema::clock_corrections::kViolations, violations}, {schema::clock_corrections::kCorrected, corrected},
                   {schema::clock_corrections::kMoved, moved}, {schema::clock_corrections::kMaxShift, max_shift}},
                  rows);
  h5::check(H5Fflush(file.get(), H5F_SCOPE_LOCAL), path, "cannot finish writing the clock record");
}

std::string clock_record_text(const ClockRecord& record) {
  double violations = 0, corrected = 0, moved = 0, max_shift = 0;
  for (const ClockCorrectionRow& row : record.corrections) {
    violations += row.violations;
    corrected += row.corrected;
    moved += row.moved;
    max_shift = std::max(max_shift, row.max_shift);
  }
  char line[200];
  std::snprintf(line, sizeof line,
                "%.0f receives before their send, %.0f corrected; %.9f s inserted, largest move %.9f s\n",
                violations, corrected, moved, max_shift);
  return "Clock       " + (record.clock.empty() ? std::string("(not described)") : record.clock) +
         "\nCorrections " + line;
}

std::optional<ClockRecord> read_clock_record(const std::string& path) {
  h5::silence_errors();
  h5::Handle file = h5::checked(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose, path,
                                "cannot open file");
  const std::optional<std::string> clock = h5::read_string_attribute(file.get(), path, kAttribute);
  const bool has_table = H5Lexists(file.get(), kTable, H5P_DEFAULT) > 0;
  if (!clock && !has_table) return std::nullopt;
  ClockRecord record;
  record.clock = clock.value_or("");
  if (!has_table) return record;
  const h5::TableReader table(file.get(), path, kTable);
  const auto ranks = table.ints(schema::clock_corrections::kRank);
  const auto violations = table.doubles(schema::clock_corrections::kViolations);
  const auto corrected = table.doubles(schema::clock_corrections::kCorrected);
  const auto moved = table.doubles(schema::clock_corrections::kMoved);
  const auto max_shift = table.doubles(schema::clock_corrections::kMaxShift);
  for (std::size_t r = 0; r < table.rows(); ++r) {
    record.corrections.push_back({ranks[r], violations[r], corrected[r], moved[r], max_shift[r]});
  }
  return record;
}

}  // namespace orrery::report

// Human-readable output of the cube tools: units, percentages, alignment, CSV quoting.

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "format.h"
#include "summary.h"

namespace orrery::report::tools {
namespace {

TEST(Format, SecondsPickAReadableUnit) {
  EXPECT_EQ(format_value(2.5, "sec"), "2.500 s");
  EXPECT_EQ(format_value(0.0125, "sec"), "12.500 ms");
  EXPECT_EQ(format_value(3.5e-6, "sec"), "3.500 µs");
  EXPECT_EQ(format_value(4e-9, "sec"), "4.0 ns");
  EXPECT_EQ(format_value(-0.25, "sec"), "-250.000 ms");
  EXPECT_EQ(format_value(0.0, "sec"), "0 s");
}

TEST(Format, BytesAndCounts) {
  EXPECT_EQ(format_value(512, "bytes"), "512 B");
  EXPECT_EQ(format_value(3 * 1024 * 1024, "bytes"), "3.0 MiB");
  EXPECT_EQ(format_value(1234567, "occ"), "1,234,567");
  EXPECT_EQ(format_value(-1000, "occ"), "-1,000");
  EXPECT_EQ(format_value(2.5, "occ"), "2.50");
  EXPECT_EQ(format_value(7, "flops"), "7 flops");
}

TEST(Format, PercentOfZeroTotalIsADash) {
  EXPECT_EQ(format_percent(1, 4), "25.0%");
  EXPECT_EQ(format_percent(1, 0), "-");
}

TEST(Format, ExactNumbersRoundTrip) {
  const double value = 0.1 + 0.2;
  EXPECT_EQ(std::stod(exact_number(value)), value);
}

TEST(Format, CsvQuotesOnlyWhenNeeded) {
  EXPECT_EQ(csv_field("main/solve"), "main/solve");
  EXPECT_EQ(csv_field("f(a, b)"), "\"f(a, b)\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_line({"a", "b,c"}), "a,\"b,c\"\n");
}

TEST(Format, TableAlignsByDisplayWidthNotBytes) {
  TextTable table({{"value"}, {"name", TextTable::Align::kLeft}});
  table.add_row({"3.500 µs", "x"});
  table.add_row({"12.000 ms", "longer"});
  std::istringstream lines(table.render());
  std::string header, first, second;
  std::getline(lines, header);
  std::getline(lines, first);
  std::getline(lines, second);
  // "µ" is two bytes but one column: the name column starts at the same column in each row.
  EXPECT_EQ(first, " 3.500 µs  x");
  EXPECT_EQ(second, "12.000 ms  longer");
  EXPECT_EQ(header, "    value  name");
}

TEST(Summary, SpreadIsMinMeanMaxAndPopulationCv) {
  const double values[] = {1, 2, 3, 6};
  const Spread spread = spread_of(values, 4);
  EXPECT_EQ(spread.min, 1);
  EXPECT_EQ(spread.max, 6);
  EXPECT_DOUBLE_EQ(spread.mean, 3);
  EXPECT_DOUBLE_EQ(spread.cv, std::sqrt((4.0 + 1 + 0 + 9) / 4) / 3);
  const double zeros[] = {0, 0};
  EXPECT_EQ(spread_of(zeros, 2).cv, 0);
}

}  // namespace
}  // namespace orrery::report::tools

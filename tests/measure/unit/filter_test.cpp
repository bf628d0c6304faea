#include "filter.h"

#include <gtest/gtest.h>

namespace orrery::measure {
namespace {

TEST(Filter, LastMatchingRuleWins) {
  Filter filter;
  std::string error;
  ASSERT_TRUE(filter.parse("# comment\nEXCLUDE *\n  INCLUDE solver::*   # keep the solver\nEXCLUDE solver::tiny*\n", error))
      << error;
  EXPECT_TRUE(filter.excluded("main"));
  EXPECT_FALSE(filter.excluded("solver::step(int)"));
  EXPECT_TRUE(filter.excluded("solver::tiny_helper()"));
}

TEST(Filter, EmptyFilterIncludesEverything) {
  Filter filter;
  std::string error;
  ASSERT_TRUE(filter.parse("\n# nothing\n", error));
  EXPECT_TRUE(filter.empty());
  EXPECT_FALSE(filter.excluded("anything"));
}

TEST(Filter, PatternsMayContainSpaces) {
  Filter filter;
  std::string error;
  ASSERT_TRUE(filter.parse("EXCLUDE std::vector<int, *\n", error));
  EXPECT_TRUE(filter.excluded("std::vector<int, std::allocator<int> >::size() const"));
}

TEST(Filter, MalformedLinesAreReportedWithTheirNumber) {
  Filter filter;
  std::string error;
  EXPECT_FALSE(filter.parse("EXCLUDE a\nDROP b\n", error));
  EXPECT_EQ(error, "line 2: expected INCLUDE or EXCLUDE, got 'DROP'");
  Filter other;
  EXPECT_FALSE(other.parse("INCLUDE\n", error));
  EXPECT_EQ(error, "line 1: INCLUDE needs a pattern");
  Filter missing;
  EXPECT_FALSE(missing.load("/nonexistent/orrery.filter", error));
}

}  // namespace
}  // namespace orrery::measure

// The recorder's stack of open regions (inline push/pop, growth out of line).
#include "recorder.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace orrery::measure {
namespace {

TEST(RegionStack, GrowsKeepingOrder) {
  RegionStack stack;
  EXPECT_TRUE(stack.empty());
  const uint32_t n = 10000;  // many growths from zero capacity
  for (uint32_t i = 0; i < n; ++i) {
    stack.push_back(i * 3);
    ASSERT_EQ(stack.back(), i * 3);
  }
  EXPECT_EQ(stack.size(), n);
  for (uint32_t i = n; i-- > 0;) {
    ASSERT_EQ(stack.back(), i * 3);
    stack.pop_back();
  }
  EXPECT_TRUE(stack.empty());
}

TEST(RegionStack, ReserveAndClear) {
  RegionStack stack;
  stack.push_back(7);
  stack.reserve(512);
  EXPECT_EQ(stack.size(), 1u);
  EXPECT_EQ(stack.back(), 7u);
  stack.reserve(4);  // never shrinks
  stack.push_back(8);
  EXPECT_EQ(stack.back(), 8u);
  stack.clear();
  EXPECT_TRUE(stack.empty());
  stack.push_back(9);
  EXPECT_EQ(stack.size(), 1u);
  EXPECT_EQ(stack.back(), 9u);
}

}  // namespace
}  // namespace orrery::measure

// The delay analysis' record → delay index (analyzer/src/delay_of_record.h):
// it keeps no table while record r is delay r, and must answer as a plain
// table would when a record breaks that pattern (a record without a delay,
// records read out of order: several sources in several batches).

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "delay_of_record.h"

namespace orrery::testing {
namespace {

using analyzer::delay::DelayOfRecord;
using analyzer::kNone;

/// Sets `(record, delay)` in order on a DelayOfRecord and on a plain table,
/// and checks that both answer the same for every record.
bool same_as_table(std::size_t records, const std::vector<std::pair<std::size_t, uint32_t>>& sets,
                   bool* identity = nullptr) {
  DelayOfRecord index;
  index.open(records);
  std::vector<uint32_t> table(records, kNone);
  for (const auto& [record, delay] : sets) {
    index.set(record, delay);
    table[record] = delay;
  }
  if (identity != nullptr) *identity = index.identity();
  if (index.size() != records) return false;
  for (std::size_t r = 0; r < records; ++r) {
    if (index[r] != table[r]) return false;
  }
  return true;
}

TEST(AnalyzerDelayOfRecord, EveryRecordInOrderKeepsNoTable) {
  std::vector<std::pair<std::size_t, uint32_t>> sets;
  for (uint32_t r = 0; r < 1000; ++r) sets.emplace_back(r, r);
  bool identity = false;
  EXPECT_TRUE(same_as_table(1000, sets, &identity));
  EXPECT_TRUE(identity);
}

TEST(AnalyzerDelayOfRecord, TheLastRecordsWithoutDelayKeepNoTable) {
  std::vector<std::pair<std::size_t, uint32_t>> sets;
  for (uint32_t r = 0; r < 600; ++r) sets.emplace_back(r, r);
  bool identity = false;
  EXPECT_TRUE(same_as_table(1000, sets, &identity));  // 600..999: kNone
  EXPECT_TRUE(identity);
  EXPECT_TRUE(same_as_table(5, {}, &identity));
  EXPECT_TRUE(identity);
}

TEST(AnalyzerDelayOfRecord, ARecordWithoutDelayBuildsTheTable) {
  // Record 3 finds no delay: record 4 is delay 3 from then on.
  std::vector<std::pair<std::size_t, uint32_t>> sets;
  for (uint32_t r = 0; r < 3; ++r) sets.emplace_back(r, r);
  for (uint32_t r = 4; r < 100; ++r) sets.emplace_back(r, r - 1);
  bool identity = true;
  EXPECT_TRUE(same_as_table(100, sets, &identity));
  EXPECT_FALSE(identity);
}

TEST(AnalyzerDelayOfRecord, RecordsOfSeveralSourcesInBatchesMatchATable) {
  // Two sources of 10 records each, in batches of 4: the pool order
  // (batch by batch, source by source) differs from the record order.
  std::vector<std::pair<std::size_t, uint32_t>> sets;
  uint32_t delay = 0;
  for (std::size_t first = 0; first < 10; first += 4) {
    for (std::size_t source = 0; source < 2; ++source) {
      for (std::size_t r = first; r < std::min<std::size_t>(first + 4, 10); ++r) {
        sets.emplace_back(source * 10 + r, delay++);
      }
    }
  }
  bool identity = true;
  EXPECT_TRUE(same_as_table(20, sets, &identity));
  EXPECT_FALSE(identity);
}

TEST(AnalyzerDelayOfRecord, RandomGapsMatchATable) {
  std::mt19937 random(7);
  for (int trial = 0; trial < 50; ++trial) {
    const std::size_t records = 1 + random() % 200;
    std::vector<std::pair<std::size_t, uint32_t>> sets;
    uint32_t delay = 0;
    for (std::size_t r = 0; r < records; ++r) {
      if (random() % 8 != 0) sets.emplace_back(r, delay++);  // some without a delay
    }
    EXPECT_TRUE(same_as_table(records, sets)) << "trial " << trial;
  }
}

}  // namespace
}  // namespace orrery::testing

#include "settings.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <utility>

namespace orrery::measure {
namespace {

TEST(Settings, ParsesSizesWithBinaryUnits) {
  std::size_t bytes = 0;
  ASSERT_TRUE(parse_size("4096", bytes));
  EXPECT_EQ(bytes, 4096u);
  ASSERT_TRUE(parse_size("64K", bytes));
  EXPECT_EQ(bytes, 64u << 10);
  ASSERT_TRUE(parse_size("16m", bytes));
  EXPECT_EQ(bytes, 16u << 20);
  ASSERT_TRUE(parse_size("1GB", bytes));
  EXPECT_EQ(bytes, 1ULL << 30);
  for (const char* bad : {"", "K", "-1", "12Q", "3 M", "99999999999999999999G"}) {
    EXPECT_FALSE(parse_size(bad, bytes)) << bad;
  }
}

TEST(Settings, ReadsTheEnvironmentAndWarnsAboutBadValues) {
  setenv("ORRERY_EXPERIMENT_DIR", "/tmp/exp", 1);
  setenv("ORRERY_BUFFER_SIZE", "lots", 1);
  setenv("ORRERY_MODE", "profile", 1);
  setenv("ORRERY_TRACE_QUERIES", "1", 1);
  setenv("ORRERY_SAMPLING_INTERVAL", "10", 1);
  std::string warnings;
  const Settings s = read_settings(warnings);
  EXPECT_EQ(s.experiment_dir, "/tmp/exp");
  EXPECT_EQ(s.buffer_size, 16u << 20);
  EXPECT_EQ(s.mode, "profile");
  EXPECT_TRUE(s.trace_queries);
  EXPECT_EQ(s.sampling_interval_ms, 10u);
  EXPECT_NE(warnings.find("ORRERY_BUFFER_SIZE='lots'"), std::string::npos) << warnings;
  for (const char* name : {"ORRERY_EXPERIMENT_DIR", "ORRERY_BUFFER_SIZE", "ORRERY_MODE", "ORRERY_TRACE_QUERIES",
                           "ORRERY_SAMPLING_INTERVAL"}) {
    unsetenv(name);
  }
}

TEST(Settings, SamplingIntervalMustBeMillisecondsUpToADay) {
  for (const char* bad : {"-1", "10ms", "1e3", "86400001", "99999999999999999999", " 5"}) {
    setenv("ORRERY_SAMPLING_INTERVAL", bad, 1);
    std::string warnings;
    const Settings s = read_settings(warnings);
    EXPECT_EQ(s.sampling_interval_ms, 0u) << bad;
    EXPECT_NE(warnings.find("ORRERY_SAMPLING_INTERVAL"), std::string::npos) << bad;
  }
  for (const auto& [text, ms] : {std::pair{"0", 0u}, std::pair{"1", 1u}, std::pair{"86400000", 86400000u}}) {
    setenv("ORRERY_SAMPLING_INTERVAL", text, 1);
    std::string warnings;
    EXPECT_EQ(read_settings(warnings).sampling_interval_ms, ms) << text;
    EXPECT_EQ(warnings, "") << text;
  }
  unsetenv("ORRERY_SAMPLING_INTERVAL");
}

}  // namespace
}  // namespace orrery::measure

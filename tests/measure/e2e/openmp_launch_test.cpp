// The launcher's OpenMP plan (measure/launcher/openmp_launch.h): DT_NEEDED
// reading, the libomp search and what a program without OpenMP gets.

#include "openmp_launch.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>

namespace orrery::measure {
namespace {

TEST(OpenMpLaunch, ReadsTheNeededLibrariesOfThisProgram) {
  const std::vector<std::string> needed = needed_libraries("/proc/self/exe");
  ASSERT_FALSE(needed.empty());
  EXPECT_NE(std::find(needed.begin(), needed.end(), "libc.so.6"), needed.end());
}

TEST(OpenMpLaunch, NoLibrariesOfWhatIsNotAnElfFile) {
  EXPECT_TRUE(needed_libraries("/nonexistent/program").empty());
  const std::string script = ::testing::TempDir() + "/orrery_openmp_script.sh";
  std::ofstream(script) << "#!/bin/sh\necho libgomp.so.1\n";
  EXPECT_TRUE(needed_libraries(script).empty());
}

TEST(OpenMpLaunch, AProgramWithoutOpenMpGetsNothing) {
  const OpenMpPlan plan = plan_openmp("/proc/self/exe", false);
  EXPECT_EQ(plan.program_runtime, "");
  EXPECT_EQ(plan.preload, "");
  EXPECT_FALSE(plan.measured);
  EXPECT_TRUE(plan.note.empty());
  EXPECT_TRUE(plan.record().is_null());
}

TEST(OpenMpLaunch, LibompFromTheEnvironmentMustExist) {
  ::setenv("ORRERY_LIBOMP", "/nonexistent/libomp.so.5", 1);
  EXPECT_EQ(find_libomp(), "");
  ::setenv("ORRERY_LIBOMP", "/proc/self/exe", 1);
  EXPECT_EQ(find_libomp(), "/proc/self/exe");
  ::unsetenv("ORRERY_LIBOMP");
}

}  // namespace
}  // namespace orrery::measure

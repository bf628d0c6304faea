// Unit tests of the launcher's pure pieces: sizes, launch-line analysis,
// forwarded variables, the environment given to the library.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <cstdlib>

#include "experiment.h"
#include "launch_line.h"
#include "run_options.h"

namespace orrery::measure {
namespace {

TEST(ByteSize, AcceptsSuffixesInPowersOf1024) {
  EXPECT_EQ(parse_byte_size("4096"), 4096u);
  EXPECT_EQ(parse_byte_size("4K"), 4096u);
  EXPECT_EQ(parse_byte_size("64M"), 64u << 20);
  EXPECT_EQ(parse_byte_size("2g"), 2ull << 30);
  EXPECT_EQ(parse_byte_size("16MB"), 16u << 20);
}

TEST(ByteSize, RejectsWhatIsNotASize) {
  for (const char* text : {"", "K", "12Q", "-4", "1.5M", "4KX", "99999999999999999"}) {
    EXPECT_FALSE(parse_byte_size(text).has_value()) << text;
  }
}

TEST(LaunchLine, FindsProgramAndRanksAfterMpirunOptions) {
  const auto line = analyze_launch_line({"mpirun", "--mca", "btl", "self,vader", "-x", "FOO",
                                         "--oversubscribe", "-np", "8", "./bin/app", "-n", "3"});
  EXPECT_TRUE(line.mpi_launcher);
  EXPECT_EQ(line.program, "./bin/app");
  ASSERT_TRUE(line.ranks.has_value());
  EXPECT_EQ(*line.ranks, 8);
  EXPECT_EQ(default_experiment_name(line), "orrery_app_8");
}

TEST(LaunchLine, ReadsRankCountWrittenWithEquals) {
  const auto line = analyze_launch_line({"srun", "--ntasks=16", "prog"});
  EXPECT_EQ(line.program, "prog");
  EXPECT_EQ(line.ranks.value_or(-1), 16);
  EXPECT_FALSE(line.openmpi);
}

TEST(LaunchLine, ProgramStartedDirectlyIsOneRank) {
  const auto line = analyze_launch_line({"/opt/x/solver", "-np", "4"});
  EXPECT_FALSE(line.mpi_launcher);
  EXPECT_EQ(line.program, "/opt/x/solver");
  EXPECT_EQ(default_experiment_name(line), "orrery_solver_1");
}

TEST(LaunchLine, UnknownRankCountIsMarked) {
  EXPECT_EQ(default_experiment_name(analyze_launch_line({"mpiexec", "./a.out"})), "orrery_a.out_x");
}

TEST(LaunchLine, ForwardsVariablesOnlyThroughOpenMpi) {
  const std::vector<std::string> launch = {"orterun", "-np", "2", "app"};
  const auto line = analyze_launch_line(launch);
  ASSERT_TRUE(line.openmpi);
  EXPECT_EQ(with_forwarded_variables(launch, line, {"A", "LD_PRELOAD"}),
            (std::vector<std::string>{"orterun", "-x", "A", "-x", "LD_PRELOAD", "-np", "2", "app"}));
  const std::vector<std::string> direct = {"app", "arg"};
  EXPECT_EQ(with_forwarded_variables(direct, analyze_launch_line(direct), {"A"}), direct);
}

TEST(Environment, MirrorsOptionsAndMarksTheLauncher) {
  RunOptions options;
  options.mode = "profile";
  options.buffer_size = "8M";
  options.trace_queries = true;
  const auto variables = measurement_environment(options, "/tmp/EXP");
  auto value = [&](const std::string& name) -> std::string {
    for (const auto& [key, text] : variables) {
      if (key == name) return text;
    }
    return "<unset>";
  };
  EXPECT_EQ(value("ORRERY_EXPERIMENT_DIR"), "/tmp/EXP");
  EXPECT_EQ(value("ORRERY_LAUNCHER"), "1");
  EXPECT_EQ(value("ORRERY_MODE"), "profile");
  EXPECT_EQ(value("ORRERY_BUFFER_SIZE"), "8M");
  EXPECT_EQ(value("ORRERY_TRACE_QUERIES"), "1");
  EXPECT_EQ(value("ORRERY_VERBOSE"), "0");
  EXPECT_EQ(value("ORRERY_FILTER"), "<unset>");
}

/// parse_run_options over a list of words (argv[0] added).
ParsedRunOptions parse(std::vector<std::string> words) {
  std::string program = "orrery run";
  std::vector<char*> argv = {program.data()};
  for (auto& word : words) argv.push_back(word.data());
  return parse_run_options(static_cast<int>(argv.size()), argv.data());
}

TEST(RunRecord, ParamsAndListedVariablesAreRecorded) {
  setenv("ORRERY_TEST_RECORDED", "fast", 1);
  unsetenv("ORRERY_TEST_UNSET");
  const auto parsed = parse({"--param", "solver=cg", "--param=size=64", "--env",
                             "ORRERY_TEST_RECORDED", "--env", "ORRERY_TEST_UNSET", "--", "app"});
  ASSERT_TRUE(parsed.options.has_value());
  const auto record = initial_run_record(*parsed.options, {"app"}, "/tmp/EXP");
  EXPECT_EQ(record["params"], (nlohmann::json{{"solver", "cg"}, {"size", "64"}}));
  EXPECT_EQ(record["environment"]["ORRERY_TEST_RECORDED"], "fast");
  EXPECT_TRUE(record["environment"]["ORRERY_TEST_UNSET"].is_null());
  // Without the options: empty objects, so readers need not check for absence.
  const auto plain = initial_run_record(*parse({"--", "app"}).options, {"app"}, "/tmp/EXP");
  EXPECT_TRUE(plain["params"].is_object() && plain["params"].empty());
}

TEST(RunRecord, MalformedParamsAreUsageErrors) {
  for (const auto& words : std::vector<std::vector<std::string>>{
           {"--param", "novalue", "--", "app"},
           {"--param", "=1", "--", "app"},
           {"--param", "a=1", "--param", "a=2", "--", "app"},
           {"--env", "A=B", "--", "app"}}) {
    const auto parsed = parse(words);
    EXPECT_FALSE(parsed.options.has_value()) << words[1];
    EXPECT_EQ(parsed.exit_status, 2) << words[1];
  }
}

}  // namespace
}  // namespace orrery::measure

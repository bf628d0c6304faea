// The source pane's lines (source_lines.h) and its endpoint /api/source.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "api.h"
#include "fixture_cube.h"
#include "source_lines.h"

namespace orrery::viewer {
namespace {

namespace fs = std::filesystem;

/// A file of `n` lines "line 1" … "line n" in a fresh directory.
fs::path numbered_file(const std::string& name, int n) {
  const fs::path dir = fs::temp_directory_path() / ("orrery-source-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream out(dir / name);
  for (int i = 1; i <= n; ++i) out << "line " << i << "\n";
  return dir / name;
}

TEST(ViewerSource, LinesAroundTheRegionsLine) {
  const fs::path file = numbered_file("solver.c", 100);
  const auto answer = source_lines({"solve", file.string(), 50, "compiler"}, {});
  ASSERT_TRUE(answer["available"].get<bool>()) << answer.dump();
  EXPECT_EQ(answer["first"], 46);
  EXPECT_EQ(answer["lines"].size(), 45U);  // 4 before, the line, 40 after
  EXPECT_EQ(answer["lines"][4], "line 50");
  EXPECT_EQ(answer["lines"].back(), "line 90");
  // Near the file's start and end the lines stop there.
  const auto start = source_lines({"main", file.string(), 2, "compiler"}, {});
  EXPECT_EQ(start["first"], 1);
  EXPECT_EQ(start["lines"][1], "line 2");
  EXPECT_EQ(source_lines({"tail", file.string(), 99, "compiler"}, {})["lines"].back(), "line 100");
}

TEST(ViewerSource, RelativeFilesAreLookedForInTheExperimentsDirectories) {
  const fs::path file = numbered_file("relative.c", 10);
  EXPECT_FALSE(source_lines({"f", "relative.c", 3, "compiler"}, {"/nonexistent"})["available"].get<bool>());
  const auto found = source_lines({"f", "relative.c", 3, "compiler"}, {"/nonexistent", file.parent_path().string()});
  ASSERT_TRUE(found["available"].get<bool>()) << found.dump();
  EXPECT_EQ(found["path"], file.string());
}

TEST(ViewerSource, ANoteWhenThereIsNoSourceToShow) {
  const fs::path file = numbered_file("short.c", 10);
  for (const report::Region& region : {report::Region{"MPI_Send", "MPI", 0, "mpi"},
                                       report::Region{"main", "", 0, "compiler"},
                                       report::Region{"main", file.string(), 0, "compiler"},
                                       report::Region{"main", "/no/such/file.c", 12, "compiler"},
                                       report::Region{"main", file.string(), 500, "compiler"}}) {
    const auto answer = source_lines(region, {});
    EXPECT_FALSE(answer["available"].get<bool>()) << region.file << ":" << region.line;
    EXPECT_FALSE(answer["reason"].get<std::string>().empty());
  }
  EXPECT_NE(source_lines({"MPI_Send", "MPI", 0, "mpi"}, {})["reason"].get<std::string>().find("-g"), std::string::npos);
  EXPECT_NE(source_lines({"main", "/no/such/file.c", 12, "compiler"}, {})["reason"].get<std::string>().find("/no/such/file.c"),
            std::string::npos);
}

TEST(ViewerSource, TheEndpointShowsTheSelectedCallPathsRegion) {
  report::Cube cube = testing::make_fixture_cube({});
  const fs::path file = numbered_file("app.c", 60);
  const std::size_t row = 1;
  auto& region = cube.header.regions.at(static_cast<std::size_t>(cube.header.callpaths.at(row).region));
  region.file = file.string();
  region.line = 20;
  auto data = std::make_shared<ReportData>("fixture", cube.header, [cube](std::size_t m) { return cube.values[m]; });
  ViewerApi api(data);
  const auto answer = api.handle("source", {{"callpath", std::to_string(row)}});
  ASSERT_TRUE(answer["available"].get<bool>()) << answer.dump();
  EXPECT_EQ(answer["name"], region.name);
  EXPECT_EQ(answer["lines"][answer["line"].get<int>() - answer["first"].get<int>()], "line 20");
  EXPECT_THROW((void)api.handle("source", {{"callpath", "100000"}}), UsageError);
}

}  // namespace
}  // namespace orrery::viewer

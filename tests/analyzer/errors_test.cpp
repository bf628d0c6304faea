// Bad input makes the analysis fail on every rank with a clear message,
// never hang: a missing experiment, a missing or truncated rank trace, a
// trace of another rank count, and traces that disagree about messages.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "orrery/error.h"
#include "support/scenario.h"

namespace orrery::testing {
namespace {

namespace fs = std::filesystem;

/// Runs the analysis of `dir` on all ranks; returns the error message (same on all).
std::string analysis_error(const std::string& dir) {
  analyzer::AnalysisOptions options;
  options.experiment = dir;
  options.write_report = false;
  try {
    analyzer::analyze(options, MPI_COMM_WORLD);
  } catch (const Error& error) {
    EXPECT_EQ(error.exit_status(), kExitBadInput);
    return error.what();
  }
  return "";
}

/// Writes a small valid trace with one message 1 -> 0 for `ranks` ranks.
std::string write_trace(const std::string& name, int ranks, bool with_send = true) {
  const std::string dir = shared_temp_dir(name);
  if (world_rank() == 0) {
    TestArchive a(dir, static_cast<uint32_t>(ranks));
    const Regions r = define_regions(a);
    for (int k = 0; k < ranks; ++k) a.rank(static_cast<uint32_t>(k)).enter(1000, r.main);
    a.rank(0).enter(2000, r.recv);
    a.rank(0).recv(3000, 1, TestArchive::kWorld, 0, 4);
    a.rank(0).leave(3000, r.recv);
    if (with_send) {
      a.rank(1).enter(2500, r.send);
      a.rank(1).send(2500, 0, TestArchive::kWorld, 0, 4);
      a.rank(1).leave(2600, r.send);
    }
    for (int k = 0; k < ranks; ++k) a.rank(static_cast<uint32_t>(k)).leave(9000, r.main);
    a.close();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return dir;
}

TEST(AnalyzerErrors, MissingExperiment) {
  const std::string message = analysis_error("/nonexistent/orrery-experiment");
  EXPECT_NE(message.find("does not exist"), std::string::npos) << message;
}

TEST(AnalyzerErrors, WrongRankCount) {
  const std::string dir = write_trace("wrong_ranks", world_size() + 1);
  const std::string message = analysis_error(dir);
  EXPECT_NE(message.find("ranks but the analysis runs on"), std::string::npos) << message;
}

TEST(AnalyzerErrors, MissingRankTrace) {
  const std::string dir = write_trace("missing_rank", world_size());
  if (world_rank() == 0) fs::remove(fs::path(dir) / "traces" / "1.evt");
  MPI_Barrier(MPI_COMM_WORLD);
  const std::string message = analysis_error(dir);
  EXPECT_NE(message.find("rank 1"), std::string::npos) << message;
  EXPECT_NE(message.find("missing"), std::string::npos) << message;
}

TEST(AnalyzerErrors, TruncatedRankTrace) {
  const std::string dir = write_trace("truncated", world_size());
  if (world_rank() == 0) {
    const fs::path file = fs::path(dir) / "traces" / "0.evt";
    fs::resize_file(file, fs::file_size(file) / 2);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const std::string message = analysis_error(dir);
  EXPECT_FALSE(message.empty());
}

TEST(AnalyzerErrors, GarbageRankTrace) {
  const std::string dir = write_trace("garbage", world_size());
  if (world_rank() == 0) {
    std::ofstream out(fs::path(dir) / "traces" / "1.evt", std::ios::trunc | std::ios::binary);
    out << "this is not an OTF2 event file";
  }
  MPI_Barrier(MPI_COMM_WORLD);
  EXPECT_FALSE(analysis_error(dir).empty());
}

TEST(AnalyzerErrors, ImplausibleRegionIdIsRefusedBeforeAllocating) {
  // A damaged definition file may name region 4,000,000,000: tables indexed by
  // id would allocate hundreds of gigabytes. It is refused with a message.
  const std::string dir = shared_temp_dir("stray_region_id");
  if (world_rank() == 0) {
    TestArchive a(dir, static_cast<uint32_t>(world_size()));
    const Regions r = define_regions(a);
    a.region_with_id(4000000000u, "stray");
    for (int k = 0; k < world_size(); ++k) {
      a.rank(static_cast<uint32_t>(k)).enter(1000, r.main);
      a.rank(static_cast<uint32_t>(k)).leave(2000, r.main);
    }
    a.close();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const std::string message = analysis_error(dir);
  EXPECT_NE(message.find("region id 4000000000"), std::string::npos) << message;
}

TEST(AnalyzerErrors, UnmatchedReceive) {
  const std::string dir = write_trace("unmatched", world_size(), /*with_send=*/false);
  const std::string message = analysis_error(dir);
  EXPECT_NE(message.find("disagree"), std::string::npos) << message;
}

TEST(AnalyzerErrors, CollectiveOnlyOneRankSaw) {
  const std::string dir = shared_temp_dir("collective_mismatch");
  if (world_rank() == 0) {
    TestArchive a(dir, static_cast<uint32_t>(world_size()));
    const Regions r = define_regions(a);
    for (int k = 0; k < world_size(); ++k) a.rank(static_cast<uint32_t>(k)).enter(1000, r.main);
    a.rank(0).enter(2000, r.barrier);
    a.rank(0).collective_begin(2000);
    a.rank(0).collective_end(3000, Collective::kBarrier, TestArchive::kWorld, TestArchive::kNoRoot,
                             0, 0);
    a.rank(0).leave(3000, r.barrier);
    for (int k = 0; k < world_size(); ++k) a.rank(static_cast<uint32_t>(k)).leave(9000, r.main);
    a.close();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const std::string message = analysis_error(dir);
  EXPECT_NE(message.find("collective"), std::string::npos) << message;
}

TEST(AnalyzerErrors, ValidTraceStillWorks) {
  const std::string dir = write_trace("valid", world_size());
  EXPECT_EQ(analysis_error(dir), "");
}

}  // namespace
}  // namespace orrery::testing

// Incomplete experiments (no MPI_Finalize): one archive per rank with that
// rank's own ids under EXP/incomplete/rank-<r>/. The definitions are unified
// across the analysis ranks (regions by name and attributes, communicators
// by member list and occurrence), and what truncation leaves behind is
// tolerated and counted. Runs with 2 or more ranks.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "orrery/analyzer/incomplete.h"
#include "orrery/error.h"
#include "support/scenario.h"

namespace orrery::testing {
namespace {

namespace fs = std::filesystem;
using analyzer::CommDef;
using analyzer::Definitions;
using analyzer::IdMapping;
using analyzer::kNone;
using analyzer::Paradigm;
using analyzer::RegionDef;
using analyzer::RegionRole;

RegionDef region_def(const std::string& name, int32_t line = 0) {
  RegionDef def;
  def.name = name;
  def.file = "a.c";
  def.line = line;
  def.paradigm = Paradigm::kCompiler;
  def.role = RegionRole::kFunction;
  return def;
}

CommDef comm_def(const std::string& name, std::vector<uint32_t> members, bool self = false) {
  CommDef def;
  def.name = name;
  def.members = std::move(members);
  def.is_self = self;
  return def;
}

// Three ranks' own definitions, ids in different orders.
std::vector<Definitions> three_ranks() {
  std::vector<Definitions> local(3);
  // Rank 0: main, solve, foo(line 1). Rank 1: solve, main, only1, foo(line 2).
  // Rank 2: foo(line 1), main.
  local[0].regions = {region_def("main"), region_def("solve"), region_def("foo", 1)};
  local[1].regions = {region_def("solve"), region_def("main"), region_def("only1"),
                      region_def("foo", 2)};
  local[2].regions = {region_def("foo", 1), region_def("main")};
  // World, self, then communicators over {0, 1}: rank 0 made dupA, dupB;
  // rank 1 the same two plus a split {1} before them (other local ids).
  local[0].comms = {{0, comm_def("MPI_COMM_WORLD", {0, 1, 2})},
                    {1, comm_def("MPI_COMM_SELF", {}, true)},
                    {2, comm_def("dupA", {0, 1})},
                    {3, comm_def("dupB", {0, 1})}};
  local[1].comms = {{0, comm_def("MPI_COMM_WORLD", {0, 1, 2})},
                    {1, comm_def("MPI_COMM_SELF", {}, true)},
                    {2, comm_def("alone", {1})},
                    {5, comm_def("dupA'", {0, 1})},
                    {7, comm_def("dupB'", {0, 1})}};
  // Rank 2 ended before creating anything but world and self, in the other order.
  local[2].comms = {{0, comm_def("MPI_COMM_SELF", {}, true)},
                    {1, comm_def("MPI_COMM_WORLD", {0, 1, 2})}};
  for (uint32_t r = 0; r < 3; ++r) {
    local[r].ranks.resize(3);
    local[r].ranks[r] = analyzer::RankDef{r, "MPI Rank " + std::to_string(r), "host" + std::to_string(r)};
  }
  return local;
}

TEST(Incomplete, UnifiesRegionsByNameAndAttributes) {
  std::vector<IdMapping> mappings;
  const Definitions unified = analyzer::unify_definitions(three_ranks(), mappings);
  // main, solve, foo:1, only1, foo:2
  ASSERT_EQ(unified.regions.size(), 5U);
  ASSERT_EQ(mappings.size(), 3U);
  const auto name = [&](std::size_t r, uint32_t local) {
    const uint32_t id = mappings[r].regions.at(local);
    return unified.regions.at(id).name + ":" + std::to_string(unified.regions.at(id).line);
  };
  EXPECT_EQ(name(0, 0), "main:0");
  EXPECT_EQ(name(1, 1), "main:0");
  EXPECT_EQ(name(2, 1), "main:0");
  EXPECT_EQ(mappings[0].regions[0], mappings[1].regions[1]);
  EXPECT_EQ(mappings[0].regions[1], mappings[1].regions[0]);  // solve
  EXPECT_EQ(mappings[0].regions[2], mappings[2].regions[0]);  // foo, line 1
  EXPECT_NE(mappings[0].regions[2], mappings[1].regions[3]);  // foo, line 2 is another
  EXPECT_EQ(name(1, 2), "only1:0");
  ASSERT_EQ(unified.ranks.size(), 3U);
  EXPECT_EQ(unified.ranks[2].host, "host2");
  EXPECT_EQ(unified.ranks[1].location, 1U);
}

TEST(Incomplete, UnifiesCommunicatorsByMembersAndOccurrence) {
  std::vector<IdMapping> mappings;
  const Definitions unified = analyzer::unify_definitions(three_ranks(), mappings);
  // world, self, dupA, dupB, alone
  ASSERT_EQ(unified.comms.size(), 5U);
  const auto& m0 = mappings[0].comms;
  const auto& m1 = mappings[1].comms;
  const auto& m2 = mappings[2].comms;
  EXPECT_EQ(m0.at(0), m1.at(0));  // world
  EXPECT_EQ(m0.at(0), m2.at(1));
  EXPECT_EQ(m0.at(1), m1.at(1));  // self: one communicator
  EXPECT_EQ(m0.at(1), m2.at(0));
  EXPECT_TRUE(unified.comms.at(m0.at(1)).is_self);
  EXPECT_EQ(m0.at(2), m1.at(5));  // the first dup of {0, 1} on both
  EXPECT_EQ(m0.at(3), m1.at(7));  // the second
  EXPECT_NE(m0.at(2), m0.at(3));
  EXPECT_EQ(unified.comms.at(m0.at(2)).name, "dupA");  // the lowest rank's name
  EXPECT_EQ(unified.comms.at(m1.at(2)).members, std::vector<uint32_t>{1});
  EXPECT_EQ(m1.at(3), kNone);  // gaps in the local ids map nowhere
}

TEST(Incomplete, SerializationRoundTrip) {
  const std::vector<Definitions> local = three_ranks();
  const std::vector<char> bytes = analyzer::serialize_definitions(local[1], 1);
  const Definitions back = analyzer::deserialize_definitions(bytes.data(), bytes.size(), 1);
  ASSERT_EQ(back.regions.size(), local[1].regions.size());
  EXPECT_EQ(back.regions[3].name, "foo");
  EXPECT_EQ(back.regions[3].line, 2);
  ASSERT_EQ(back.comms.size(), local[1].comms.size());
  EXPECT_EQ(back.comms.at(7).members, (std::vector<uint32_t>{0, 1}));
  EXPECT_TRUE(back.comms.at(1).is_self);
  ASSERT_EQ(back.ranks.size(), 3U);
  EXPECT_EQ(back.ranks[1].host, "host1");
  EXPECT_THROW((void)analyzer::deserialize_definitions(bytes.data(), bytes.size() - 3, 1),
               InputError);
}

/// Writes rank `r`'s archive of an incomplete experiment of `ranks` ranks:
/// regions and communicators defined in a rank-dependent order.
///   all ranks: main [0, 100000]; a barrier on "dup" (a dup of world) that
///              rank k enters at 10000 + 1000 k, all leave at 10000 + 1000 n;
///              then a barrier on world that the last rank never recorded;
///              the last rank ended inside another barrier (begin, no end)
///   rank 0:    MPI_Recv on dup from rank 1, entered at 1000, message at 5100;
///              two receives (world, tag 6) from rank 1 that it never sent
///   rank 1:    MPI_Send on dup to rank 0 at 5000 (late sender: 4000 ns),
///              and a send on world (tag 5) that rank 0 never received
void write_rank_archive(const std::string& exp, uint32_t r, uint32_t ranks) {
  const std::string dir = exp + "/incomplete/rank-" + std::to_string(r);
  TestArchive a(dir, ranks);
  // Region ids: rotated by the rank, plus one region only this rank has.
  std::vector<std::string> names = {"main", "MPI_Recv", "MPI_Send", "MPI_Barrier"};
  std::rotate(names.begin(), names.begin() + (r % names.size()), names.end());
  std::map<std::string, uint32_t> id;
  if (r % 2 == 1) id["only" + std::to_string(r)] = a.region("only" + std::to_string(r));
  for (const std::string& name : names) {
    id[name] = a.region(name, name.starts_with("MPI_") ? "mpi" : "compiler");
  }
  // Communicators: world is 0; odd ranks made a one-rank split before the dup.
  std::vector<uint32_t> world(ranks);
  for (uint32_t k = 0; k < ranks; ++k) world[k] = k;
  if (r % 2 == 1) (void)a.comm("split", {r});
  const uint32_t dup = a.comm("dup", world);

  TestArchive::Rank& me = a.rank(r);
  const uint64_t n = ranks;
  me.enter(0, id["main"]);
  if (r == 0) {
    me.enter(1000, id["MPI_Recv"]);
    me.recv(5100, 1, dup, 3, 4);
    me.leave(5200, id["MPI_Recv"]);
    // Two receives whose sends rank 1's trace does not have (more receives
    // from rank 1 than it sent: the counts disagree).
    for (uint64_t t : {6000, 7000}) {
      me.enter(t, id["MPI_Recv"]);
      me.recv(t + 100, 1, TestArchive::kWorld, 6, 4);
      me.leave(t + 200, id["MPI_Recv"]);
    }
  } else if (r == 1) {
    me.enter(5000, id["MPI_Send"]);
    me.send(5000, 0, dup, 3, 4);
    me.leave(5050, id["MPI_Send"]);
    me.enter(6000, id["only1"]);
    me.leave(7000, id["only1"]);
    me.enter(8000, id["MPI_Send"]);
    me.send(8000, 0, TestArchive::kWorld, 5, 4);
    me.leave(8050, id["MPI_Send"]);
  }
  me.enter(10000 + 1000 * r, id["MPI_Barrier"]);
  me.collective_begin(10000 + 1000 * r);
  me.collective_end(10000 + 1000 * n, Collective::kBarrier, dup, TestArchive::kNoRoot, 0, 0);
  me.leave(10000 + 1000 * n, id["MPI_Barrier"]);
  if (r + 1 < ranks) {
    me.enter(20000, id["MPI_Barrier"]);
    me.collective_begin(20000);
    me.collective_end(30000, Collective::kBarrier, TestArchive::kWorld, TestArchive::kNoRoot, 0, 0);
    me.leave(30000, id["MPI_Barrier"]);
  } else {
    // The last rank ended inside a barrier on dup (no completion recorded).
    me.enter(40000, id["MPI_Barrier"]);
    me.collective_begin(40000);
    me.leave(50000, id["MPI_Barrier"]);
  }
  me.leave(100000, id["main"]);
  a.close();
  std::ofstream(exp + "/incomplete/rank-" + std::to_string(r) + ".json")
      << R"({"format": "orrery-incomplete", "reason": ")"
      << (r == 0 ? "exit without MPI_Finalize" : "SIGTERM") << R"(", "ids": "local"})";
}

std::string write_incomplete(const std::string& name, uint32_t ranks, uint32_t skip = kNone) {
  const std::string exp = shared_temp_dir(name);
  if (world_rank() == 0) {
    for (uint32_t r = 0; r < ranks; ++r) {
      if (r != skip) write_rank_archive(exp, r, ranks);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return exp;
}

TEST(Incomplete, AnalyzesPerRankArchivesWithLocalIds) {
  const auto n = static_cast<uint32_t>(world_size());
  const std::string exp = write_incomplete("incomplete_run", n);
  analyzer::AnalysisOptions options;
  options.experiment = exp;
  options.write_report = false;
  const analyzer::AnalysisResult result = analyzer::analyze(options, MPI_COMM_WORLD);
  EXPECT_TRUE(result.incomplete);
  if (world_rank() != 0) return;
  const report::Cube& cube = result.cube;
  EXPECT_NEAR(value(cube, "late_sender", "main/MPI_Recv", 0), 4000e-9, 1e-12);
  for (uint32_t r = 0; r < n; ++r) {
    // The dup barrier: everyone waits for the last rank.
    EXPECT_NEAR(value(cube, "wait_at_barrier", "main/MPI_Barrier", static_cast<int>(r)),
                1000e-9 * (n - 1 - r), 1e-12)
        << "rank " << r;
  }
  EXPECT_NEAR(value(cube, "execution", "main/only1", 1), 1000e-9, 1e-12);
  EXPECT_EQ(value(cube, "visits", "main/only1", 1), 1.0);
  EXPECT_EQ(value(cube, "visits", "main/only1", 0), 0.0);
  EXPECT_EQ(result.statistics.sends_unmatched, 1U);
  EXPECT_EQ(result.statistics.recvs_unmatched, 2U);
  EXPECT_EQ(result.statistics.collectives_dropped, 1U);
  EXPECT_EQ(result.statistics.collectives_interrupted, 1U);
  EXPECT_EQ(result.statistics.messages, 1U);
  ASSERT_EQ(result.rank_endings.size(), n);
  EXPECT_EQ(result.rank_endings[0], "exit without MPI_Finalize");
  EXPECT_EQ(result.rank_endings[1], "SIGTERM");
  const std::string line = analyzer::describe_endings(result.rank_endings);
  EXPECT_NE(line.find("exit without MPI_Finalize: rank 0"), std::string::npos) << line;
  EXPECT_NE(line.find("SIGTERM: rank"), std::string::npos) << line;
}

std::string analysis_error(const std::string& exp) {
  analyzer::AnalysisOptions options;
  options.experiment = exp;
  options.write_report = false;
  try {
    (void)analyzer::analyze(options, MPI_COMM_WORLD);
  } catch (const Error& error) {
    EXPECT_EQ(error.exit_status(), kExitBadInput);
    return error.what();
  }
  return "";
}

TEST(Incomplete, RankWithoutTraceIsAnalyzedWithoutIt) {
  // The last rank was killed by SIGKILL: no archive, no record. The others
  // are analyzed; its values are absent (NaN), what it took part in counted.
  const auto n = static_cast<uint32_t>(world_size());
  const std::string exp = write_incomplete("incomplete_missing", n, n - 1);
  analyzer::AnalysisOptions options;
  options.experiment = exp;
  options.write_report = false;
  const analyzer::AnalysisResult result = analyzer::analyze(options, MPI_COMM_WORLD);
  if (world_rank() != 0) return;
  const report::Cube& cube = result.cube;
  ASSERT_EQ(cube.header.locations.size(), n);
  EXPECT_NE(cube.header.locations[n - 1].name.find("no trace"), std::string::npos);
  const int lost = static_cast<int>(n - 1);
  EXPECT_TRUE(std::isnan(value(cube, "execution", "main", lost)));
  EXPECT_TRUE(std::isnan(value(cube, "visits", "main", lost)));
  EXPECT_GT(value(cube, "execution", "main", 0), 0.0);
  if (n > 2) {
    EXPECT_EQ(value(cube, "visits", "main/only1", 1), 1.0);
  }
  ASSERT_EQ(result.rank_endings.size(), n);
  EXPECT_EQ(result.rank_endings[n - 1], "no trace");
  // Every world instance is dropped (the lost rank's count is 0), and its
  // messages (rank 1's to rank 0 when it is rank 1) are unmatched.
  EXPECT_GE(result.statistics.collectives_dropped, 1U);
  if (n == 2) {
    EXPECT_GE(result.statistics.recvs_unmatched, 2U);
  }
  const std::string warning = analyzer::describe_lost_ranks({n - 1});
  EXPECT_NE(warning.find("rank " + std::to_string(n - 1) + " left no trace"), std::string::npos)
      << warning;
}

TEST(Incomplete, WrongRankCountSaysHowToRun) {
  const auto n = static_cast<uint32_t>(world_size());
  const std::string message = analysis_error(write_incomplete("incomplete_ranks", n + 1));
  EXPECT_NE(message.find("mpirun -np " + std::to_string(n + 1)), std::string::npos) << message;
}

}  // namespace
}  // namespace orrery::testing

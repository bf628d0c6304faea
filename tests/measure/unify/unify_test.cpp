// Definition unification (measure/lib/src/unify.cpp) under mpirun: ranks
// define overlapping, rank-specific and locally repeated regions and
// communicators; the reduction tree must give exactly the ids of one pass over
// all ranks in rank order (first appearance), computed here by a plain
// reference from the same definitions (every rank can rebuild every rank's).

#include <gtest/gtest.h>
#include <mpi.h>

#include <string>
#include <vector>

#include "unify.h"
#include "unify_set.h"

namespace orrery::measure {
namespace {

RegionDef region(const std::string& name, uint32_t line, Paradigm paradigm, RegionRole role) {
  RegionDef def;
  def.name = name;
  def.file = "file.c";
  def.line = line;
  def.paradigm = paradigm;
  def.role = role;
  return def;
}

CommDef comm(int32_t root, uint32_t seq, std::string path, std::vector<int> members, uint32_t parent) {
  CommDef def;
  def.key_root = root;
  def.key_seq = seq;
  def.key_path = std::move(path);
  def.name = "comm of " + std::to_string(members.empty() ? -1 : members.front());
  def.kind = CommDef::Kind::kGroup;
  def.members = std::move(members);
  def.parent = parent;
  return def;
}

/// Rank `r`'s definitions (of `size` ranks): deterministic, so any rank can rebuild any other's.
LocalDefinitions definitions_of(int r, int size) {
  LocalDefinitions local;
  // Common regions in a rank-dependent rotation: first appearance is not local order.
  for (int i = 0; i < 6; ++i) {
    const int k = (i + r) % 6;
    local.add_region(region("common" + std::to_string(k), 10, Paradigm::kUser,
                            r % 2 == 0 ? RegionRole::kFunction : RegionRole::kLoop));  // first role wins
  }
  local.add_region(region("pair" + std::to_string(r / 2), 20, Paradigm::kUser, RegionRole::kFunction));
  local.add_region(region("own" + std::to_string(r), 30 + static_cast<uint32_t>(r), Paradigm::kMpi,
                          RegionRole::kPointToPoint));
  local.add_region(region("common1", 10, Paradigm::kUser, RegionRole::kFunction));  // repeated locally
  local.add_region(region("common1", 11, Paradigm::kUser, RegionRole::kFunction));  // other line: another region
  if (r % 3 == 2) local.add_region(region("thirds", 40, Paradigm::kCompiler, RegionRole::kFunction));
  // Communicators: world, self, a split into groups of 3, an idup of it, and
  // communicators of pairs with a parent; one parent refers forward (dropped).
  const int first = r / 3 * 3;
  std::vector<int> group;
  for (int m = first; m < std::min(first + 3, size); ++m) group.push_back(m);
  std::vector<int> world(static_cast<std::size_t>(size));
  for (int m = 0; m < size; ++m) world[static_cast<std::size_t>(m)] = m;
  local.add_comm(comm(-1, 0, "", world, UINT32_MAX));
  local.add_comm(comm(-2, 0, "", {r}, UINT32_MAX));
  const uint32_t split = local.add_comm(comm(first, 1, "", group, 0));
  local.add_comm(comm(first, 1, "/i0", group, split));
  const int partner = r ^ 1;
  if (partner < size) {
    const std::vector<int> pair = {std::min(r, partner), std::max(r, partner)};
    const uint32_t forward = static_cast<uint32_t>(local.comms().size() + 1);
    local.add_comm(comm(pair[0], 2, "", pair, r % 2 == 0 ? split : forward));
    local.add_comm(comm(pair[0], 3, "", pair, 0));
  }
  local.add_comm(comm(first, 1, "", group, 0));  // repeated locally
  return local;
}

std::string host_of(int r) { return "node" + std::to_string(r / 3); }

/// The reference: one pass over the ranks in rank order, linear searches.
struct Reference {
  GlobalDefinitions global;
  std::vector<IdMapping> mappings;

  explicit Reference(int size) {
    for (int r = 0; r < size; ++r) {
      const LocalDefinitions local = definitions_of(r, size);
      IdMapping map;
      for (const RegionDef& def : local.regions()) map.regions.push_back(find_or_add(def));
      for (std::size_t i = 0; i < local.comms().size(); ++i) {
        CommDef def = local.comms()[i];
        def.parent = def.parent < i ? map.comms[def.parent] : UINT32_MAX;
        map.comms.push_back(find_or_add(def));
      }
      mappings.push_back(map);
      global.hosts.push_back(host_of(r));
    }
  }

  uint32_t find_or_add(const RegionDef& def) {
    for (uint32_t id = 0; id < global.regions.size(); ++id) {
      const RegionDef& g = global.regions[id];
      if (g.name == def.name && g.file == def.file && g.line == def.line && g.paradigm == def.paradigm) return id;
    }
    global.regions.push_back(def);
    return static_cast<uint32_t>(global.regions.size() - 1);
  }

  uint32_t find_or_add(const CommDef& def) {
    for (uint32_t id = 0; id < global.comms.size(); ++id) {
      const CommDef& g = global.comms[id];
      if (g.key_root == def.key_root && g.key_seq == def.key_seq && g.key_path == def.key_path) return id;
    }
    global.comms.push_back(def);
    return static_cast<uint32_t>(global.comms.size() - 1);
  }
};

TEST(Unify, TreeGivesTheIdsOfOnePassInRankOrder) {
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const Reference expected(size);
  GlobalDefinitions global;
  IdMapping mapping;
  UnificationCost cost;
  ASSERT_TRUE(unify(MPI_COMM_WORLD, definitions_of(rank, size), host_of(rank), global, mapping, &cost));
  EXPECT_EQ(mapping.regions, expected.mappings[static_cast<std::size_t>(rank)].regions);
  EXPECT_EQ(mapping.comms, expected.mappings[static_cast<std::size_t>(rank)].comms);
  EXPECT_GT(cost.bytes_received, 0U);
  if (rank != 0) return;
  EXPECT_EQ(global.hosts, expected.global.hosts);
  ASSERT_EQ(global.regions.size(), expected.global.regions.size());
  for (std::size_t i = 0; i < global.regions.size(); ++i) {
    EXPECT_EQ(global.regions[i].name, expected.global.regions[i].name) << i;
    EXPECT_EQ(global.regions[i].line, expected.global.regions[i].line) << i;
    EXPECT_EQ(global.regions[i].paradigm, expected.global.regions[i].paradigm) << i;
    EXPECT_EQ(global.regions[i].role, expected.global.regions[i].role) << i;
  }
  ASSERT_EQ(global.comms.size(), expected.global.comms.size());
  for (std::size_t i = 0; i < global.comms.size(); ++i) {
    EXPECT_EQ(global.comms[i].key_root, expected.global.comms[i].key_root) << i;
    EXPECT_EQ(global.comms[i].key_seq, expected.global.comms[i].key_seq) << i;
    EXPECT_EQ(global.comms[i].key_path, expected.global.comms[i].key_path) << i;
    EXPECT_EQ(global.comms[i].members, expected.global.comms[i].members) << i;
    EXPECT_EQ(global.comms[i].name, expected.global.comms[i].name) << i;
    EXPECT_EQ(global.comms[i].parent, expected.global.comms[i].parent) << i;
  }
}

TEST(Unify, RankZeroReceivesLessThanAGatherOfEveryRank) {
  // One gather would deliver every rank's definitions to rank 0; the tree
  // delivers the unions of ceil(log2 P) blocks. Common definitions dominate here.
  int rank = 0;
  int size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  LocalDefinitions local;
  for (int i = 0; i < 200; ++i) local.add_region(region("common" + std::to_string(i), 1, Paradigm::kUser, RegionRole::kFunction));
  GlobalDefinitions global;
  IdMapping mapping;
  UnificationCost cost;
  ASSERT_TRUE(unify(MPI_COMM_WORLD, local, "host", global, mapping, &cost));
  const uint64_t one_rank = DefinitionSet::of_rank(local, "host").encode().size();
  int rounds = 0;
  while ((1 << rounds) < size) ++rounds;
  if (rank == 0) {
    EXPECT_EQ(cost.messages, static_cast<uint64_t>(rounds) + 1);  // one per child, one Allreduce
    EXPECT_LE(cost.bytes_received, static_cast<uint64_t>(rounds) * (one_rank + 64) + sizeof(int));
    EXPECT_EQ(global.regions.size(), 200U);
    EXPECT_EQ(global.hosts, std::vector<std::string>(static_cast<std::size_t>(size), "host"));
  }
}

}  // namespace
}  // namespace orrery::measure

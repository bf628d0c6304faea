// CubeMerge against a plain reference: every rank builds a different random
// call tree and random severities; the merge (binomial-tree unification,
// values pulled from blocks of ranks) must give exactly the call paths and
// values of one sequential unification of all trees in rank order, as the
// merge did before it was distributed.

#include <gtest/gtest.h>
#include <mpi.h>

#include <functional>
#include <map>
#include <random>
#include <vector>

#include "orrery/analyzer/merge.h"
#include "orrery/patterns/registry.h"
#include "support/scenario.h"

namespace orrery::analyzer {
namespace {

using ::orrery::testing::world_rank;
using ::orrery::testing::world_size;

constexpr uint32_t kRegions = 6;

/// A call tree that differs per rank: shared roots, random depth and breadth.
CallTree random_tree(int rank) {
  std::mt19937 random(static_cast<unsigned>(1234 + rank));
  CallTree tree;
  const uint32_t main_path = tree.child(kNone, 0);
  std::vector<uint32_t> paths{main_path};
  const int nodes = 10 + rank * 7 % 23;
  for (int i = 0; i < nodes; ++i) {
    const uint32_t parent =
        random() % 17 == 0 ? kNone : paths[random() % static_cast<uint32_t>(paths.size())];
    paths.push_back(tree.child(parent, static_cast<uint32_t>(random() % kRegions)));
  }
  return tree;
}

/// Every rank's tree as (parent, region) pairs, on every rank.
std::vector<std::vector<CallPathNode>> all_trees(const CallTree& mine) {
  std::vector<std::vector<CallPathNode>> trees;
  for (int r = 0; r < world_size(); ++r) {
    CallTree tree = r == world_rank() ? mine : random_tree(r);
    trees.push_back(tree.nodes());
  }
  return trees;
}

/// The reference: one sequential unification, pre-order with children in
/// order of first appearance; returns the cube rows of every rank's paths.
std::vector<std::vector<uint32_t>> reference(const std::vector<std::vector<CallPathNode>>& trees,
                                             std::vector<report::Callpath>& callpaths) {
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> unified;
  std::vector<CallPathNode> nodes;
  std::vector<std::vector<uint32_t>> maps(trees.size());
  for (std::size_t r = 0; r < trees.size(); ++r) {
    for (const CallPathNode& node : trees[r]) {
      const uint32_t parent = node.parent == kNone ? kNone : maps[r][node.parent];
      auto [it, inserted] =
          unified.try_emplace({parent, node.region}, static_cast<uint32_t>(nodes.size()));
      if (inserted) nodes.push_back(CallPathNode{parent, node.region});
      maps[r].push_back(it->second);
    }
  }
  std::vector<std::vector<uint32_t>> children(nodes.size());
  std::vector<uint32_t> roots, position(nodes.size());
  for (uint32_t n = 0; n < nodes.size(); ++n) {
    (nodes[n].parent == kNone ? roots : children[nodes[n].parent]).push_back(n);
  }
  uint32_t next = 0;
  std::function<void(uint32_t)> visit = [&](uint32_t n) {
    position[n] = next++;
    callpaths.push_back(report::Callpath{
        nodes[n].parent == kNone ? -1 : static_cast<int32_t>(position[nodes[n].parent]),
        static_cast<int32_t>(nodes[n].region)});
    for (uint32_t c : children[n]) visit(c);
  };
  for (uint32_t root : roots) visit(root);
  for (auto& map : maps) {
    for (uint32_t& n : map) n = position[n];
  }
  return maps;
}

/// Severity of (metric, local call path) on `rank`: zero for most metrics.
double severity(std::size_t metric, uint32_t callpath, int rank) {
  if (metric % 3 != 0) return 0.0;
  return static_cast<double>(rank) * 1000.0 + callpath + 0.25 * static_cast<double>(metric);
}

void check_merge(std::size_t block_values) {
  const int rank = world_rank(), size = world_size();
  const CallTree tree = random_tree(rank);
  patterns::PatternRegistry registry;
  patterns::SeverityMap severities(registry.size(), tree.size());
  for (std::size_t m = 0; m < registry.size(); ++m) {
    for (uint32_t c = 0; c < tree.size(); ++c) severities.add(m, c, severity(m, c, rank));
  }
  Definitions definitions;
  for (uint32_t region = 0; region < kRegions; ++region) {
    RegionDef def;
    def.name = "region " + std::to_string(region);
    definitions.regions.push_back(def);
  }
  definitions.ranks.resize(static_cast<std::size_t>(size));

  const CubeMerge merge(tree, registry, definitions, MPI_COMM_WORLD, block_values);
  const auto trees = all_trees(tree);
  std::vector<report::Callpath> expected_paths;
  const auto rows = reference(trees, expected_paths);
  EXPECT_EQ(merge.rows(), rows[static_cast<std::size_t>(rank)]);

  for (std::size_t m = 0; m < registry.size(); ++m) {
    const report::MetricValues values = merge.gather_metric(m, severities);
    if (rank != 0) {
      EXPECT_TRUE(values.empty());
      continue;
    }
    const auto locations = static_cast<std::size_t>(size);
    report::MetricValues expected(expected_paths.size() * locations, 0.0);
    for (std::size_t r = 0; r < trees.size(); ++r) {
      for (uint32_t c = 0; c < trees[r].size(); ++c) {
        expected[rows[r][c] * locations + r] += severity(m, c, static_cast<int>(r));
      }
    }
    ASSERT_EQ(values, expected) << "metric " << m;
  }
  if (rank != 0) return;
  const auto& header = merge.header();
  ASSERT_EQ(header.callpaths.size(), expected_paths.size());
  for (std::size_t c = 0; c < expected_paths.size(); ++c) {
    EXPECT_EQ(header.callpaths[c].parent, expected_paths[c].parent) << "call path " << c;
    EXPECT_EQ(header.callpaths[c].region, expected_paths[c].region) << "call path " << c;
  }
  EXPECT_EQ(header.locations.size(), static_cast<std::size_t>(size));
}

TEST(CubeMerge, SameAsSequentialUnificationInOneBlock) { check_merge(CubeMerge::kBlockValues); }

TEST(CubeMerge, SameAsSequentialUnificationOneRankPerBlock) { check_merge(1); }

}  // namespace
}  // namespace orrery::analyzer

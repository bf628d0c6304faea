// CallTree (ORRERY_MODE=profile): call paths, visits, inclusive/exclusive time.
#include "call_tree.h"

#include <gtest/gtest.h>

namespace om = orrery::measure;

namespace {

// Node id of the call path given as regions from the root, or kNone.
uint32_t find_path(const om::CallTree& tree, std::initializer_list<uint32_t> path) {
  uint32_t parent = om::CallTree::kNone;
  uint32_t found = om::CallTree::kNone;
  for (uint32_t region : path) {
    found = om::CallTree::kNone;
    for (uint32_t i = 0; i < tree.nodes().size(); ++i) {
      if (tree.nodes()[i].parent == parent && tree.nodes()[i].region == region) found = i;
    }
    if (found == om::CallTree::kNone) return found;
    parent = found;
  }
  return found;
}

}  // namespace

TEST(CallTree, SameRegionUnderDifferentParentsIsTwoCallPaths) {
  om::CallTree tree;
  // main(1) { a(2) { mpi(9) }  b(3) { mpi(9) } a(2) { mpi(9) } }
  tree.enter(1, 0);
  tree.enter(2, 10);
  tree.enter(9, 12);
  tree.leave(20);
  tree.leave(25);
  tree.enter(3, 30);
  tree.enter(9, 31);
  tree.leave(41);
  tree.leave(50);
  tree.enter(2, 60);
  tree.enter(9, 61);
  tree.leave(64);
  tree.leave(70);
  tree.leave(100);
  EXPECT_EQ(tree.depth(), 0u);
  ASSERT_EQ(tree.nodes().size(), 5u);
  const uint32_t main_path = find_path(tree, {1});
  const uint32_t a = find_path(tree, {1, 2});
  const uint32_t a_mpi = find_path(tree, {1, 2, 9});
  const uint32_t b_mpi = find_path(tree, {1, 3, 9});
  ASSERT_NE(a_mpi, om::CallTree::kNone);
  ASSERT_NE(b_mpi, om::CallTree::kNone);
  EXPECT_EQ(tree.nodes()[a].visits, 2u);
  EXPECT_EQ(tree.nodes()[a].inclusive, 15u + 10u);
  EXPECT_EQ(tree.nodes()[a_mpi].visits, 2u);
  EXPECT_EQ(tree.nodes()[a_mpi].inclusive, 8u + 3u);
  EXPECT_EQ(tree.nodes()[b_mpi].inclusive, 10u);
  EXPECT_EQ(tree.exclusive(a), 25u - 11u);
  EXPECT_EQ(tree.nodes()[main_path].inclusive, 100u);
  EXPECT_EQ(tree.exclusive(main_path), 100u - 25u - 20u);
}

TEST(CallTree, RecursionAndSeveralRoots) {
  om::CallTree tree;
  tree.enter(4, 0);
  tree.enter(4, 1);
  tree.leave(2);
  tree.leave(3);
  tree.enter(5, 10);
  tree.leave(11);
  tree.enter(4, 20);
  tree.leave(22);
  EXPECT_EQ(tree.nodes().size(), 3u);  // 4, 4/4, 5
  EXPECT_EQ(tree.nodes()[find_path(tree, {4})].visits, 2u);
  EXPECT_EQ(tree.nodes()[find_path(tree, {4})].inclusive, 3u + 2u);
  EXPECT_EQ(tree.nodes()[find_path(tree, {4, 4})].visits, 1u);
  EXPECT_EQ(tree.nodes()[find_path(tree, {5})].parent, om::CallTree::kNone);
}

TEST(CallTree, LeaveAtTheTopIsIgnored) {
  om::CallTree tree;
  tree.leave(5);
  tree.enter(1, 10);
  tree.leave(12);
  tree.leave(13);
  EXPECT_EQ(tree.depth(), 0u);
  EXPECT_EQ(tree.nodes()[0].inclusive, 2u);
}

TEST(CallTree, TrafficCountsAtTheInnermostCallPath) {
  om::CallTree tree;
  using Traffic = om::CallTree::Traffic;
  tree.add_traffic(Traffic::kSend, 8, 0);  // outside any region: ignored
  tree.enter(1, 0);
  tree.enter(2, 1);
  tree.add_traffic(Traffic::kSend, 100, 0);
  tree.add_traffic(Traffic::kSend, 20, 0);
  tree.add_traffic(Traffic::kReceive, 0, 64);
  tree.leave(2);
  tree.add_traffic(Traffic::kCollective, 8, 16);
  tree.leave(3);
  const auto& inner = tree.nodes()[find_path(tree, {1, 2})];
  EXPECT_EQ(inner.sends, 2u);
  EXPECT_EQ(inner.bytes_sent, 120u);
  EXPECT_EQ(inner.receives, 1u);
  EXPECT_EQ(inner.bytes_received, 64u);
  EXPECT_EQ(inner.collectives, 0u);
  const auto& outer = tree.nodes()[find_path(tree, {1})];
  EXPECT_EQ(outer.sends, 0u);
  EXPECT_EQ(outer.collectives, 1u);
  EXPECT_EQ(outer.bytes_coll_out, 8u);
  EXPECT_EQ(outer.bytes_coll_in, 16u);
}

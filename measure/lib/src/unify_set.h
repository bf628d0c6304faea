#pragma once
// The definitions of a contiguous block of ranks, deduplicated in order of
// first appearance (rank order, then each rank's local order). Unification
// (unify.cpp) merges these blocks up a reduction tree: appending the blocks of
// ranks [a, b) and [b, c) in that order gives the same ids as appending the
// ranks of [a, c) one by one, so the root's block holds the global ids that a
// single pass over all ranks in rank order would assign.

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "definitions.h"

namespace orrery::measure {

struct DefinitionSet {
  std::vector<RegionDef> regions;
  std::vector<CommDef> comms;  ///< parent: index into comms (always smaller), or UINT32_MAX
  /// Host names of the block's ranks in rank order, run-length encoded.
  std::vector<std::pair<std::string, uint32_t>> hosts;

  /// One rank's set: its local definitions as they are (duplicates kept); a
  /// communicator's parent is kept only if it comes before it in local order.
  static DefinitionSet of_rank(const LocalDefinitions& local, const std::string& host);
  /// Hosts expanded to one name per rank.
  [[nodiscard]] std::vector<std::string> host_per_rank() const;
  [[nodiscard]] std::vector<uint8_t> encode() const;
  /// Throws on a malformed blob.
  static DefinitionSet decode(const std::vector<uint8_t>& blob);
};

/// Where an appended block's definitions went: its index -> the union's index.
struct BlockMap {
  std::vector<uint32_t> regions;
  std::vector<uint32_t> comms;
};

/// Builds the union of blocks appended in rank order. Regions are the same
/// when name, file, line and paradigm are; communicators when their key
/// (root, sequence, path) is. The first appearance's other fields win.
class DefinitionUnion {
 public:
  BlockMap append(const DefinitionSet& block);
  /// Hosts of `ranks` ranks whose block was lost (kept in rank order).
  void append_unknown_hosts(uint32_t ranks);
  [[nodiscard]] const DefinitionSet& set() const noexcept { return set_; }
  [[nodiscard]] DefinitionSet take() noexcept { return std::move(set_); }

 private:
  void append_hosts(const std::string& host, uint32_t ranks);

  DefinitionSet set_;
  std::map<std::tuple<std::string, std::string, uint32_t, int>, uint32_t> regions_;
  std::map<std::tuple<int32_t, uint32_t, std::string>, uint32_t> comms_;
};

}  // namespace orrery::measure

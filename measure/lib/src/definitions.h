#pragma once
// A rank's local definitions (regions, communicators) with local ids. They are
// unified into global ids at MPI_Finalize (unify.cpp).

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "orrery/region_kind.h"

namespace orrery::measure {

using orrery::kParadigms;
using orrery::Paradigm;
using orrery::RegionRole;

/// The source file of every MPI region (Score-P's convention: Scalasca's
/// reader classifies a region as MPI, and as which call, by this string).
inline constexpr const char* kMpiSourceFile = "MPI";

/// A region as this rank knows it.
struct RegionDef {
  std::string name;
  std::string file;
  uint32_t line = 0;
  Paradigm paradigm = Paradigm::kUser;
  RegionRole role = RegionRole::kFunction;
  const void* address = nullptr;  ///< compiler regions: resolved to file/line at finalize
};

/// A communicator as this rank knows it. The key (root, seq) is the same on all
/// members of one communicator and distinct otherwise.
struct CommDef {
  enum class Kind : uint8_t { kWorld, kSelf, kGroup };
  int32_t key_root = 0;   ///< world rank of the creator's rank 0 (-1 world, -2 self)
  uint32_t key_seq = 0;   ///< sequence number at that creator
  /// Derived communicators made without communication (MPI_Comm_idup): the
  /// parent's key plus "/i<n>" for the parent's n-th idup; "" otherwise.
  std::string key_path;
  std::string name;
  Kind kind = Kind::kGroup;
  std::vector<int> members;  ///< world ranks in communicator rank order
  uint32_t parent = UINT32_MAX;
};

/// Local definitions of this rank.
class LocalDefinitions {
 public:
  uint32_t add_region(RegionDef def);
  /// Region id of a region identified by name and paradigm (defined on first use).
  uint32_t region_by_name(std::string_view name, Paradigm paradigm, RegionRole role);
  uint32_t add_comm(CommDef def);

  [[nodiscard]] std::vector<RegionDef>& regions() noexcept { return regions_; }
  [[nodiscard]] const std::vector<RegionDef>& regions() const noexcept { return regions_; }
  [[nodiscard]] const std::vector<CommDef>& comms() const noexcept { return comms_; }

 private:
  std::vector<RegionDef> regions_;
  std::vector<CommDef> comms_;
  std::unordered_map<std::string, uint32_t> by_name_[kParadigms];
};

}  // namespace orrery::measure
